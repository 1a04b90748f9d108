import BigNumber from 'bignumber.js';
import { decimal, fromMinor } from '../domain/decimal';
import { AppError } from '../domain/errors';
import { futuresParams } from '../domain/futures';
import { closedOrClosing, type CopyDeps } from './copy-deps';
import type { MasterRecord } from './copy-store';
import { maxSlippage } from './copy-slave.service';
import type { CopySettlementService } from './copy-settlement.service';
import type { MarketEntry } from '../platform/market-event';

const RESUME_EVERY_MS = 5_000;
/** Follower orders placed at once for one master fill. */
const FANOUT_CONCURRENCY = 32;

/** Why a master order was not mirrored into a subscription (recorded per subscription). */
export const SkipReason = {
  BelowMinimum: 'BELOW_PAIR_MINIMUM',
  Slippage: 'SLIPPAGE',
  NoMargin: 'NO_MARGIN',
  MasterPositionClosed: 'MASTER_POSITION_CLOSED',
} as const;

export interface MirrorOutcome {
  placed: number;
  skipped: number;
  closed: number;
  failed: number;
}

/** `copy:<masterOrderId>:<subscriptionId>`: the follower order's clientOrderId, so a replay places nothing twice. */
export const copyClientOrderId = (masterOrderId: string | number, subId: string | number) => `copy:${masterOrderId}:${subId}`;

/**
 * Mirrors masters' trading onto their active subscriptions (DESIGN 4), from the `done` events of
 * the futures streams. A master order is mirrored once it stops working (filled, or its rest
 * expired or cancelled) for the quantity it filled: each subscription gets a market order of
 * filled × margin / master equity, rounded down to the lot. When a master position closes, each
 * active subscription's mirrored position closes at market. Every step is idempotent.
 */
export class CopyMirrorService {
  constructor(
    private readonly d: CopyDeps,
    private readonly settlement: CopySettlementService,
  ) {}

  /** The master orders a subscription did not mirror, with the reason of each. */
  skips(subscriptionId: string | number) {
    return this.d.store.skips(String(subscriptionId));
  }

  private lastResume = 0;

  /** One futures stream entry, as the dispatcher hands it over (or a test reads it). */
  async handleEntry(entry: Pick<MarketEntry, 'events' | 'ts'>): Promise<MirrorOutcome> {
    // the worker takes up finishes and master closes a crashed API process left between steps
    if (Date.now() - this.lastResume > RESUME_EVERY_MS) {
      this.lastResume = Date.now();
      await this.settlement.resume();
    }
    const out: MirrorOutcome = { placed: 0, skipped: 0, closed: 0, failed: 0 };
    for (const ev of entry.events) {
      if (ev.e !== 'done') continue;
      const closedByFollower = ev.status === 'closed' && (await this.d.store.isFollowerUser(ev.u));
      if (!closedByFollower && !(await this.d.store.isMasterUser(ev.u))) continue;
      const h = await this.d.reader.order(ev.id);
      if (h.kind !== 'futures' || h.role !== 'open') continue;
      if (closedByFollower) await this.returnLeftover(h.acct);
      const master = await this.d.store.master(h.acct);
      if (!master || master.status !== 'Active') continue;
      if (ev.status === 'closed') await this.mirrorClose(master, h.id, out);
      else if (Number(h.filled) > 0) await this.mirrorOpen(master, h.id, entry.ts, out);
      // the followers' stop loss and take profit, looked at whenever their master trades
      for (const sub of await this.d.store.masterSubscriptions(master.id)) await this.settlement.enforceRiskControls(sub);
    }
    return out;
  }

  /**
   * A position left open by finishMasterCopy (closeOrders false) has closed: the free balance of the
   * finished subscription's account goes back to the slave account, as at the finish itself.
   */
  private async returnLeftover(accountId: string): Promise<void> {
    const sub = await this.d.store.subscriptionOfAccount(accountId);
    if (!sub || sub.state === 'Active') return;
    await this.settlement.completeFinishing(sub.id);
  }

  /** Places the follower orders of one master order (the order must have stopped working). */
  async mirrorOpen(master: MasterRecord, masterOrderId: string, at: number, out = newOutcome()): Promise<MirrorOutcome> {
    const subs = (await this.d.store.masterSubscriptions(master.id)).filter((s) => s.active === '1');
    if (subs.length === 0) return out;
    const h = await this.d.reader.order(masterOrderId);
    const pair = await this.d.futures.orders.futuresPair(h.pair);
    const { lotLots, ns } = futuresParams(pair);
    const equity = (await this.d.reader.state(master.id))?.equity ?? new BigNumber(0);
    const entry = new BigNumber(h.ecost || 0).div(h.filled);
    // fan-out in chunks of FANOUT_CONCURRENCY subscriptions at a time (each step is idempotent)
    const one = async (sub: (typeof subs)[number]): Promise<void> => {
      // an entry older than the subscription (a replay) is not the subscription's to copy
      if (Number(sub.opened) > at) return;
      const clid = copyClientOrderId(h.id, sub.id);
      if (await this.d.reader.orderByClientId(sub.user, clid)) return;
      const skip = async (reason: string) => {
        await this.d.store.recordSkip(sub.id, h.id, reason, at);
        out.skipped++;
      };
      if (h.status !== '50') {
        await skip(SkipReason.MasterPositionClosed);
        return;
      }
      const margin = new BigNumber(sub.margin);
      if (margin.lte(0) || equity.lte(0)) {
        await skip(SkipReason.NoMargin);
        return;
      }
      const raw = new BigNumber(h.filled).times(margin).div(equity).integerValue(BigNumber.ROUND_FLOOR);
      const lots = raw.minus(raw.mod(lotLots));
      const notional = entry.times(lots).times(ns).shiftedBy(-pair.quoteDecimals);
      if (lots.lte(0) || lots.shiftedBy(-pair.digitsAmount).lt(decimal(pair.minBaseAmount)) || notional.lt(decimal(pair.minQuoteAmount))) {
        await skip(SkipReason.BelowMinimum);
        return;
      }
      const amount = fromMinor(lots.toFixed(0), pair.digitsAmount);
      const masterPrice = entry.shiftedBy(-pair.digitsPrice);
      if (!(await this.withinSlippage(pair.code, h.side === 'buy', amount, masterPrice, maxSlippage(sub)))) {
        await skip(SkipReason.Slippage);
        return;
      }
      try {
        const placed = await this.d.futures.orders.create(sub.user, {
          isMarket: true, isLong: h.side === 'buy', amount, currencyPairCode: pair.code, futuresAccountId: Number(sub.acct),
          clientOrderId: clid, takeProfit: trigger(h.tp, pair.digitsPrice), stopLoss: trigger(h.sl, pair.digitsPrice),
        }, true);
        const f = await this.d.reader.order(placed.id);
        if (f.status === '40' || f.status === '30') {
          await skip(f.status === '40' ? 'INSUFFICIENT_MARGIN' : 'NO_LIQUIDITY');
          return;
        }
        out.placed++;
        // the master may have closed while this order was placed: its close found nothing to mirror
        if ((await this.d.reader.order(h.id)).status !== '50') await this.closeFollower(sub.user, f, out);
      } catch (err) {
        if (err instanceof AppError && err.status === 422) await skip(err.code);
        else {
          out.failed++;
          this.d.log.error({ err, subscription: sub.id, masterOrderId: h.id }, 'copy: follower order failed');
        }
      }
    };
    for (let i = 0; i < subs.length; i += FANOUT_CONCURRENCY) await Promise.all(subs.slice(i, i + FANOUT_CONCURRENCY).map(one));
    return out;
  }

  /**
   * The slippage guard (DESIGN 4): the book holds `amount` within `percent` of the master's fill
   * price (asks at most that much above it for a long, bids at most that much below for a short).
   * Read just before the follower's order, so a book that moves in between can still fill it worse.
   */
  private async withinSlippage(pair: string, isLong: boolean, amount: number, masterPrice: BigNumber, percent: number) {
    const limit = masterPrice.times(isLong ? 100 + percent : 100 - percent).div(100);
    const book = await this.d.futures.market.orderBook(pair, 100);
    let left = new BigNumber(amount);
    for (const level of isLong ? book.asks : book.bids) {
      if (isLong ? limit.lt(level.price) : limit.gt(level.price)) return false;
      left = left.minus(level.quantity);
      if (left.lte(0)) return true;
    }
    return false;
  }

  /** Closes the positions mirrored from one master position in every active subscription. */
  async mirrorClose(master: MasterRecord, masterOrderId: string, out = newOutcome()): Promise<MirrorOutcome> {
    for (const sub of await this.d.store.masterSubscriptions(master.id)) {
      if (sub.active !== '1') continue;
      const f = await this.d.reader.orderByClientId(sub.user, copyClientOrderId(masterOrderId, sub.id));
      if (f) await this.closeFollower(sub.user, f, out);
    }
    return out;
  }

  private async closeFollower(userId: string, f: Record<string, string>, out: MirrorOutcome): Promise<void> {
    if (f.status !== '50' && f.status !== '10') return;
    try {
      if (await closedOrClosing(() => this.d.futures.orders.close(userId, { orderId: Number(f.id), isMarket: true }))) {
        out.closed++;
      }
    } catch (err) {
      out.failed++;
      this.d.log.error({ err, orderId: f.id }, 'copy: closing a mirrored position failed');
    }
  }
}

/** The master's TP or SL as a price for the follower's order (null when none). */
const trigger = (ticks: string | undefined, digits: number) => (ticks && ticks !== '0' ? fromMinor(ticks, digits) : null);

const newOutcome = (): MirrorOutcome => ({ placed: 0, skipped: 0, closed: 0, failed: 0 });
