import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import { closedOrClosing, type CopyDeps } from './copy-deps';
import type { SubscriptionRecord } from './copy-store';
import type { CopySettlementService } from './copy-settlement.service';
import { copyClientOrderId, planClose, planOpen, type OpenContext } from './mirror-plan';

/** Subscriptions one fan-out job handles (COPY_FANOUT_CHUNK). */
export const DEFAULT_FANOUT_CHUNK = 200;

/**
 * One master event's fan-out to a slice of its subscriptions: a BullMQ job of the copy-fanout
 * queue (copy-workers.ts), or run inline by `CopyMirrorService.handleEntry`.
 */
export interface FanoutChunk {
  /** `<stream job id>/<event index>/<chunk index>` (fanoutChunkId). */
  id: string;
  kind: 'open' | 'close';
  master: string;
  masterOrderId: string;
  /** the stream entry's timestamp: a subscription opened after it is not its to copy */
  at: number;
  /** master equity in minor units, read once for the event, so every chunk and every replay sizes alike */
  equity: string;
  /** subscription ids, a slice of the master's subscriptions opened up to `at` (a list that never changes) */
  subs: string[];
}

export interface MirrorOutcome {
  placed: number;
  skipped: number;
  closed: number;
  failed: number;
}

export const newOutcome = (): MirrorOutcome => ({ placed: 0, skipped: 0, closed: 0, failed: 0 });

/**
 * The job id of a chunk. It is derived from the stream entry, the event's place in it and the
 * chunk's place in the event, so a re-dispatched entry adds no job twice. `/`, not `:`, separates
 * the parts, as in `streamJobId`: BullMQ refuses `:` in a custom job id.
 */
export const fanoutChunkId = (streamJobId: string, eventIndex: number, chunkIndex: number) => `${streamJobId}/${eventIndex}/${chunkIndex}`;

type Hash = Record<string, string>;

/**
 * Carries out one chunk in a fixed number of round trips, whatever its size: the subscriptions and
 * the followers' existing copy orders read in pipelines, the decisions of mirror-plan.ts, every
 * follower order of the chunk placed in one engine call (`FuturesOrderService.createMany`), the
 * skips written in one pipeline. Idempotent: follower clientOrderIds are deterministic and looked
 * up first (and the engine answers a repeated one with the first order), closes act only on an
 * open follower position, a skip keeps its first reason.
 */
export class CopyFanout {
  constructor(
    private readonly d: CopyDeps,
    private readonly settlement: CopySettlementService,
  ) {}

  async run(c: FanoutChunk): Promise<MirrorOutcome> {
    const out = newOutcome();
    const [masterOrder, subs] = await this.read(c);
    const active = subs.filter((s) => s.active === '1');
    if (c.kind === 'open') await this.open(c, masterOrder, active, out);
    else await this.close(c, active, out);
    // the followers' stop loss and take profit, looked at whenever their master trades
    for (const sub of active) await this.settlement.enforceRiskControls(sub);
    return out;
  }

  /** The master order and the chunk's subscriptions, in one round trip. */
  private async read(c: FanoutChunk): Promise<[Hash, SubscriptionRecord[]]> {
    const p = this.d.redis.pipeline().hgetall(this.d.keys.order(c.masterOrderId));
    for (const id of c.subs) p.hgetall(this.d.keys.copySubscription(id));
    const [order, ...subs] = ((await p.exec()) ?? []).map(([err, h]) => {
      if (err) throw err;
      return h as Hash;
    });
    return [order, subs.filter((s) => s.id) as unknown as SubscriptionRecord[]];
  }

  /** The id of each subscription's copy order of `masterOrderId`, or null, in one round trip. */
  private async mirroredIds(masterOrderId: string, subs: SubscriptionRecord[]): Promise<(string | null)[]> {
    if (subs.length === 0) return [];
    const p = this.d.redis.pipeline();
    for (const s of subs) p.hget(this.d.keys.futuresClientOrderIds(s.user), copyClientOrderId(masterOrderId, s.id));
    return ((await p.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return v as string | null;
    });
  }

  private async open(c: FanoutChunk, masterOrder: Hash, subs: SubscriptionRecord[], out: MirrorOutcome): Promise<void> {
    if (subs.length === 0 || !masterOrder.id) return;
    const [mirrored, pair] = await Promise.all([this.mirroredIds(c.masterOrderId, subs), this.d.futures.orders.futuresPair(masterOrder.pair)]);
    const book = await this.d.futures.market.orderBook(pair.code, 100);
    const ctx: OpenContext = { masterOrder, pair, equity: new BigNumber(c.equity), at: c.at, book };
    const skips: { sub: string; reason: string }[] = [];
    const places: { sub: SubscriptionRecord; req: Parameters<CopyDeps['futures']['orders']['create']>[1] }[] = [];
    subs.forEach((sub, i) => {
      const decision = planOpen(ctx, sub, mirrored[i] !== null);
      if (decision.kind === 'skip') skips.push({ sub: sub.id, reason: decision.reason });
      else if (decision.kind === 'place') places.push({ sub, req: decision.request });
    });
    const results = await this.d.futures.orders.createMany(
      places.map((p) => ({ userId: p.sub.user, req: p.req })),
      true,
    );
    const placed: { user: string; id: string; acct: string }[] = [];
    results.forEach((r, i) => {
      const sub = places[i].sub;
      if (!r.ok) {
        if (r.error instanceof AppError && r.error.status === 422) skips.push({ sub: sub.id, reason: r.error.code });
        else {
          out.failed++;
          this.d.log.error({ err: r.error, subscription: sub.id, masterOrderId: c.masterOrderId }, 'copy: follower order failed');
        }
      } else if (r.status === 40 || r.status === 30) {
        // accepted, then refused for margin (Error) or ended unfilled (Cancelled)
        skips.push({ sub: sub.id, reason: r.status === 40 ? 'INSUFFICIENT_MARGIN' : 'NO_LIQUIDITY' });
      } else if (!r.duplicate) {
        out.placed++;
        placed.push({ user: sub.user, id: String(r.id), acct: sub.acct });
      }
    });
    await this.d.store.recordSkips(skips, c.masterOrderId, c.at);
    out.skipped += skips.length;
    // the master may have closed while these orders were placed: its close found nothing to mirror
    if (placed.length && (await this.d.reader.order(c.masterOrderId)).status !== '50') {
      await Promise.all(placed.map((f) => this.closeFollower(f.user, { ...f, pair: masterOrder.pair }, out)));
    }
  }

  private async close(c: FanoutChunk, subs: SubscriptionRecord[], out: MirrorOutcome): Promise<void> {
    const ids = await this.mirroredIds(c.masterOrderId, subs);
    const p = this.d.redis.pipeline();
    for (const id of ids) if (id) p.hgetall(this.d.keys.order(id));
    const found = ((await p.exec()) ?? []).map(([, h]) => h as Hash);
    let next = 0;
    const followers = ids.map((id) => (id ? found[next++] : null));
    await Promise.all(
      subs.map(async (sub, i) => {
        const d = planClose(sub, followers[i]);
        if (d.kind === 'close') await this.closeFollower(sub.user, { id: d.order.id, pair: d.order.pair, acct: d.order.acct }, out);
      }),
    );
  }

  /** Closes a follower's position at market (or cancels it unfilled); a position no longer open is left as it is. */
  private async closeFollower(userId: string, ref: { id: string; pair: string; acct: string }, out: MirrorOutcome): Promise<void> {
    try {
      if (await closedOrClosing(() => this.d.futures.engine.close(userId, ref, null, Date.now()))) out.closed++;
    } catch (err) {
      out.failed++;
      this.d.log.error({ err, orderId: ref.id }, 'copy: closing a mirrored position failed');
    }
  }
}
