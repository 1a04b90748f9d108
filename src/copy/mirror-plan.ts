import BigNumber from 'bignumber.js';
import { decimal, fromMinor } from '../domain/decimal';
import { futuresParams } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { MarketEvent } from '../platform/market-event';
import type { CloseRequest, CreateFuturesRequest } from '../futures';
import type { MasterRecord, SubscriptionRecord } from './copy-store';
import { maxSlippage } from './copy-slave.service';

/**
 * What mirroring decides, per master event and per subscription (docs/copy-trading.md
 * "Mirroring"): pure functions over data read before. The caller reads (EventView once per event,
 * SubscriptionView per subscription), plans, and carries the actions out, in any batching: every
 * action is idempotent (a follower order's clientOrderId names its master fill, a follower close's
 * names the master trade and the follower position), so a replayed event does nothing twice.
 */

/** One thing a master did, read from a futures stream entry; `masterOrderId` is the master's position (its opening order). */
export type MasterEvent =
  /** a fill of the master's opening order (each partial fill of a resting order too) */
  | { kind: 'fill'; user: string; masterOrderId: string; tradeId: string; priceTicks: string; lots: string; ts: number }
  /** a fill of a close of the master's position: `lots` closed, `openAfter` lots still open */
  | { kind: 'close'; user: string; masterOrderId: string; tradeId: string; lots: string; openAfter: string; ts: number }
  /** the master's position closed (also by the insurance fund or ADL, which are no trades) */
  | { kind: 'closed'; user: string; masterOrderId: string; ts: number }
  /** the master's take profit / stop loss as they now stand ('' none) */
  | { kind: 'trigger'; user: string; masterOrderId: string; tpTicks: string; slTicks: string; ts: number };

/** What a plan needs of the master's position, read once per event. */
export interface EventView {
  master: MasterRecord;
  pair: Pair;
  /** the master's opening order hash as it stands now */
  position: Record<string, string>;
  /** the master account's equity, minor units (free + locked + unrealized at mark) */
  equity: BigNumber;
}

/** What a plan needs of one subscription. */
export interface SubscriptionView {
  sub: SubscriptionRecord;
  /** the subscription account's open orders (Created or InPosition), hashes */
  open: Record<string, string>[];
  /** for a fill: the follower order its clientOrderId already names (a replay), else null */
  placed: Record<string, string> | null;
}

export type FollowerAction =
  | { kind: 'place'; userId: string; order: CreateFuturesRequest & { clientOrderId: string; timeInForce: 'IOC' } }
  | { kind: 'close'; userId: string; closes: (CloseRequest & { clientOrderId: string })[] }
  | { kind: 'trigger'; userId: string; updates: { orderId: number; which: 'tp' | 'sl'; price: number | null }[] }
  | { kind: 'skip'; reason: SkipReasonCode }
  | { kind: 'none' };

/** Why a master fill was not mirrored into a subscription (recorded per subscription, readable by the follower). */
export const SkipReason = {
  BelowMinimum: 'BELOW_PAIR_MINIMUM',
  Slippage: 'SLIPPAGE',
  NoMargin: 'NO_MARGIN',
  MasterPositionClosed: 'MASTER_POSITION_CLOSED',
} as const;
/** A SkipReason, or the engine's code for an order it refused (INSUFFICIENT_MARGIN, …). */
export type SkipReasonCode = string;

/** The follower order of one master fill: `copy:<masterOrderId>:<subscriptionId>:<tradeId>` (docs/copy-trading.md). */
export const copyClientOrderId = (masterOrderId: string, subId: string, tradeId: string) => `copy:${masterOrderId}:${subId}:${tradeId}`;
/** A follower close: of follower position `positionId`, for master trade `tradeId` (or `closed`). */
export const copyCloseId = (tradeId: string, positionId: string) => `copy-close:${tradeId}:${positionId}`;

/** The users an entry's events name, so the caller can tell which are masters before `masterEvents`. */
export function eventUsers(events: MarketEvent[]): Set<string> {
  const out = new Set<string>();
  for (const ev of events) {
    if (ev.e === 'trade') out.add(ev.tu).add(ev.mu);
    else if ((ev.e === 'done' && ev.status === 'closed') || ev.e === 'trigger') out.add(ev.u);
  }
  return out;
}

/** The master events of one stream entry, in order; `masters` = the users among eventUsers that are masters. */
export function masterEvents(entry: { events: MarketEvent[]; ts: number }, masters: Set<string>): MasterEvent[] {
  const out: MasterEvent[] = [];
  const ts = entry.ts;
  for (const ev of entry.events) {
    if (ev.e === 'trade') {
      // each side of a trade: its order, its position (the opening order's id), what is left open
      for (const [user, order, pos, open] of [[ev.tu, ev.tk, ev.tpos, ev.to], [ev.mu, ev.mk, ev.mpos, ev.mo]]) {
        if (!masters.has(user) || !pos) continue;
        if (order === pos) out.push({ kind: 'fill', user, masterOrderId: pos, tradeId: ev.id, priceTicks: ev.p, lots: ev.q, ts });
        else if (open !== undefined) out.push({ kind: 'close', user, masterOrderId: pos, tradeId: ev.id, lots: ev.q, openAfter: open, ts });
      }
    } else if (ev.e === 'done' && ev.status === 'closed' && masters.has(ev.u)) {
      out.push({ kind: 'closed', user: ev.u, masterOrderId: ev.id, ts });
    } else if (ev.e === 'trigger' && masters.has(ev.u)) {
      out.push({ kind: 'trigger', user: ev.u, masterOrderId: ev.id, tpTicks: ev.tp, slTicks: ev.sl, ts });
    }
  }
  return out;
}

/** The follower's action for one master event in one subscription. */
export function planFollowerAction(ev: MasterEvent, view: EventView, s: SubscriptionView): FollowerAction {
  // an event older than the subscription (a replay) is not the subscription's to copy
  if (s.sub.active !== '1' || Number(s.sub.opened) > ev.ts) return { kind: 'none' };
  if (ev.kind === 'fill') return planFill(ev, view, s);
  const linked = linkedPositions(ev.masterOrderId, s);
  if (linked.length === 0) return { kind: 'none' };
  if (ev.kind === 'trigger') return planTrigger(ev, view.pair, s.sub.user, linked);
  if (ev.kind === 'closed' || ev.openAfter === '0') {
    const tag = ev.kind === 'closed' ? 'closed' : ev.tradeId;
    return { kind: 'close', userId: s.sub.user, closes: linked.map((f) => ({ orderId: Number(f.id), isMarket: true, clientOrderId: copyCloseId(tag, f.id) })) };
  }
  return planPartialClose(ev, view.pair, s.sub.user, linked);
}

function planFill(ev: Extract<MasterEvent, { kind: 'fill' }>, view: EventView, s: SubscriptionView): FollowerAction {
  if (s.placed) return { kind: 'none' };
  const { pair, position } = view;
  if (position.status !== '50') return { kind: 'skip', reason: SkipReason.MasterPositionClosed };
  const margin = new BigNumber(s.sub.margin);
  if (margin.lte(0) || view.equity.lte(0)) return { kind: 'skip', reason: SkipReason.NoMargin };
  const { lotLots, ns } = futuresParams(pair);
  const lots = toLot(new BigNumber(ev.lots).times(margin).div(view.equity), lotLots);
  const notional = new BigNumber(ev.priceTicks).times(lots).times(ns).shiftedBy(-pair.quoteDecimals);
  if (!aboveMinimum(pair, lots) || notional.lt(decimal(pair.minQuoteAmount))) return { kind: 'skip', reason: SkipReason.BelowMinimum };
  const isLong = position.side === 'buy';
  // the worst price the follower accepts: the master's fill price moved maxSlippagePercent against it
  const s100 = new BigNumber(100).plus(isLong ? maxSlippage(s.sub) : -maxSlippage(s.sub)).div(100);
  const limitTicks = new BigNumber(ev.priceTicks).times(s100).integerValue(isLong ? BigNumber.ROUND_FLOOR : BigNumber.ROUND_CEIL);
  return {
    kind: 'place',
    userId: s.sub.user,
    order: {
      isMarket: false, isLong, price: fromMinor(limitTicks.toFixed(0), pair.digitsPrice), amount: fromMinor(lots.toFixed(0), pair.digitsAmount),
      currencyPairCode: pair.code, futuresAccountId: Number(s.sub.acct), timeInForce: 'IOC',
      clientOrderId: copyClientOrderId(ev.masterOrderId, s.sub.id, ev.tradeId),
      // the master's TP/SL, where the engine takes them against the follower's limit (a long's TP above it, SL below)
      takeProfit: triggerFor(position.tp, limitTicks, isLong, pair), stopLoss: triggerFor(position.sl, limitTicks, !isLong, pair),
    },
  };
}

/**
 * Each linked position closes the master's fraction lots / (lots + openAfter) of what it holds, down
 * to the lot. The engine takes the fraction of the position as it stands when the close runs (the
 * `share` of the close): another job's close of the same position, running at once for the same
 * master close's other fill, has then already been taken off (issue 24 finding 7). The amount worked
 * out here, from the position as read, only decides whether a share reaches the pair minimum.
 */
function planPartialClose(ev: Extract<MasterEvent, { kind: 'close' }>, pair: Pair, userId: string, linked: Record<string, string>[]): FollowerAction {
  const { lotLots } = futuresParams(pair);
  const q = new BigNumber(ev.lots);
  const before = q.plus(ev.openAfter);
  const closes: (CloseRequest & { clientOrderId: string })[] = [];
  for (const f of linked) {
    if (f.status !== '50') continue;
    const lots = toLot(new BigNumber(f.openQty).times(q).div(before), lotLots);
    // a share below the pair minimum waits: the master's later closes (its full close at last) take it
    if (!aboveMinimum(pair, lots)) continue;
    const share = { closed: q.toFixed(0), before: before.toFixed(0) };
    closes.push({ orderId: Number(f.id), isMarket: true, share, clientOrderId: copyCloseId(ev.tradeId, f.id) });
  }
  return closes.length ? { kind: 'close', userId, closes } : { kind: 'none' };
}

function planTrigger(ev: Extract<MasterEvent, { kind: 'trigger' }>, pair: Pair, userId: string, linked: Record<string, string>[]): FollowerAction {
  const updates: { orderId: number; which: 'tp' | 'sl'; price: number | null }[] = [];
  for (const f of linked) {
    for (const [which, ticks] of [['tp', ev.tpTicks], ['sl', ev.slTicks]] as const) {
      if ((f[which] ?? '') !== ticks) updates.push({ orderId: Number(f.id), which, price: ticks ? fromMinor(ticks, pair.digitsPrice) : null });
    }
  }
  return updates.length ? { kind: 'trigger', userId, updates } : { kind: 'none' };
}

/** The follower positions mirrored from master position `masterOrderId` in this subscription. */
function linkedPositions(masterOrderId: string, s: SubscriptionView): Record<string, string>[] {
  const prefix = `copy:${masterOrderId}:${s.sub.id}`;
  return s.open.filter((f) => f.clid === prefix || f.clid?.startsWith(`${prefix}:`));
}

const toLot = (raw: BigNumber, lotLots: number) => {
  const whole = raw.integerValue(BigNumber.ROUND_FLOOR);
  return whole.minus(whole.mod(lotLots));
};

const aboveMinimum = (pair: Pair, lots: BigNumber) => lots.gt(0) && !lots.shiftedBy(-pair.digitsAmount).lt(decimal(pair.minBaseAmount));

/** A master TP or SL as a follower order's price, when on the side the engine takes: `above` the limit or below. */
function triggerFor(ticks: string | undefined, limitTicks: BigNumber, above: boolean, pair: Pair): number | null {
  if (!ticks || ticks === '0') return null;
  const ok = above ? limitTicks.lt(ticks) : limitTicks.gt(ticks);
  return ok ? fromMinor(ticks, pair.digitsPrice) : null;
}
