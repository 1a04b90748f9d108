import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import { closedOrClosing, type CopyDeps } from './copy-deps';
import type { SubscriptionRecord } from './copy-store';
import {
  copyClientOrderId, copyCloseId, SkipReason, type EventView, type FollowerAction, type MasterEvent, type SubscriptionView,
} from './mirror-plan';

/** What mirroring did with one stream entry or chunk; a failed step makes the job throw, and BullMQ retries it. */
export interface MirrorOutcome {
  placed: number;
  skipped: number;
  closed: number;
  updated: number;
  failed: number;
}

export const newOutcome = (): MirrorOutcome => ({ placed: 0, skipped: 0, closed: 0, updated: 0, failed: 0 });

type Skip = { sub: string; reason: string };

/**
 * The reads a plan needs (mirror-plan.ts) and the engine calls that carry its actions out, for a
 * chunk of subscriptions at once: the views in a fixed number of round trips, every follower order
 * of the chunk in one engine call (`FuturesOrderService.createMany`), the skips in one pipeline.
 * `equity` caches the master's equity per entry: the fills of one master order share it.
 */
export class MirrorActions {
  constructor(private readonly d: CopyDeps) {}

  /** The master's position the event is about, when it is on an Active master's account; else null. */
  async eventView(ev: MasterEvent, equity: Map<string, BigNumber>): Promise<EventView | null> {
    const position = await this.d.reader.order(ev.masterOrderId);
    if (position.kind !== 'futures' || position.role !== 'open') return null;
    const master = await this.d.store.master(position.acct);
    if (!master || master.status !== 'Active') return null;
    const pair = await this.d.futures.orders.futuresPair(position.pair);
    if (ev.kind === 'fill' && !equity.has(master.id)) {
      equity.set(master.id, (await this.d.reader.state(master.id))?.equity ?? new BigNumber(0));
    }
    return { master, pair, position, equity: equity.get(master.id) ?? new BigNumber(0) };
  }

  /** A fill needs to know whether it was placed already; a close or a TP/SL change the followers' open positions. */
  async subscriptionViews(ev: MasterEvent, subs: SubscriptionRecord[]): Promise<SubscriptionView[]> {
    if (ev.kind === 'fill') {
      const placed = await this.d.reader.ordersByClientIds(subs.map((s) => ({ userId: s.user, clientOrderId: copyClientOrderId(ev.masterOrderId, s.id, ev.tradeId) })));
      return subs.map((sub, i) => ({ sub, open: [], placed: placed[i] }));
    }
    const open = await this.d.reader.openOrdersOf(subs.map((s) => s.acct));
    return subs.map((sub, i) => ({ sub, open: open[i], placed: null }));
  }

  /** Carries out each subscription's action (`actions[i]` is `subs[i]`'s). */
  async execute(ev: MasterEvent, subs: SubscriptionRecord[], actions: FollowerAction[], out: MirrorOutcome): Promise<void> {
    const skips: Skip[] = [];
    const places: { sub: SubscriptionRecord; action: Extract<FollowerAction, { kind: 'place' }> }[] = [];
    const others: Promise<void>[] = [];
    actions.forEach((action, i) => {
      if (action.kind === 'skip') skips.push({ sub: subs[i].id, reason: action.reason });
      else if (action.kind === 'place') places.push({ sub: subs[i], action });
      else if (action.kind !== 'none') others.push(this.guarded(ev, subs[i], action, skips, out, () => this.closeOrUpdate(action, out)));
    });
    await Promise.all([this.placeAll(ev, places, skips, out), ...others]);
    await this.d.store.recordSkips(skips, ev.masterOrderId, ev.ts, ev.kind === 'fill' ? ev.tradeId : undefined);
    out.skipped += skips.length;
  }

  /** The chunk's follower orders in one engine call, each answered as if alone. */
  private async placeAll(ev: MasterEvent, places: { sub: SubscriptionRecord; action: Extract<FollowerAction, { kind: 'place' }> }[], skips: Skip[], out: MirrorOutcome) {
    if (places.length === 0) return;
    const results = await this.d.futures.orders.createMany(places.map((p) => ({ userId: p.action.userId, req: p.action.order })), true);
    const placed: { sub: SubscriptionRecord; userId: string; id: number }[] = [];
    results.forEach((r, i) => {
      const { sub, action } = places[i];
      if (!r.ok) this.refused(ev, sub, r.error, skips, out);
      // an IOC that found nothing within maxSlippagePercent of the master's price ends unfilled
      else if (r.status === 30 || r.status === 40) skips.push({ sub: sub.id, reason: r.status === 40 ? 'INSUFFICIENT_MARGIN' : SkipReason.Slippage });
      else if (!r.duplicate) {
        out.placed++;
        placed.push({ sub, userId: action.userId, id: r.id });
      }
    });
    // the master may have closed while these orders were placed: its close found nothing to mirror
    if (placed.length && (await this.d.reader.order(ev.masterOrderId)).status !== '50') {
      const closeOne = (f: (typeof placed)[number]) => this.close(f.userId, { orderId: f.id, isMarket: true, clientOrderId: copyCloseId('closed', String(f.id)) }, out);
      await Promise.all(placed.map((f) => closeOne(f).catch((err: unknown) => this.refused(ev, f.sub, err, skips, out, 'close'))));
    }
  }

  private async closeOrUpdate(action: Extract<FollowerAction, { kind: 'close' | 'trigger' }>, out: MirrorOutcome): Promise<void> {
    if (action.kind === 'close') {
      for (const c of action.closes) await this.close(action.userId, c, out);
      return;
    }
    for (const u of action.updates) {
      if (await closedOrClosing(() => this.d.futures.orders.updateTrigger(action.userId, u.orderId, u.which, u.price))) out.updated++;
    }
  }

  /** Runs one subscription's step; a refusal is recorded as its skip, anything else counted as failed. */
  private async guarded(ev: MasterEvent, sub: SubscriptionRecord, action: FollowerAction, skips: Skip[], out: MirrorOutcome, step: () => Promise<void>) {
    try {
      await step();
    } catch (err) {
      this.refused(ev, sub, err, skips, out, action.kind);
    }
  }

  /** The engine refused the follower's order, close or TP/SL (margin, minimum, a trigger on the wrong side): a skip; else a failure. */
  private refused(ev: MasterEvent, sub: SubscriptionRecord, err: unknown, skips: Skip[], out: MirrorOutcome, action = 'place') {
    if (err instanceof AppError && err.status === 422) {
      skips.push({ sub: sub.id, reason: err.code });
      return;
    }
    out.failed++;
    this.d.log.error({ err, subscription: sub.id, masterOrderId: ev.masterOrderId, action }, 'copy: follower action failed');
  }

  private async close(userId: string, req: Parameters<CopyDeps['futures']['orders']['close']>[1], out: MirrorOutcome) {
    if (await closedOrClosing(() => this.d.futures.orders.close(userId, req))) out.closed++;
  }
}
