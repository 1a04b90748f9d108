import BigNumber from 'bignumber.js';
import type { CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import { MirrorActions, newOutcome, type MirrorOutcome } from './mirror-actions';
import { planFollowerAction, type EventView, type MasterEvent } from './mirror-plan';

/** Subscriptions one fan-out job handles (COPY_FANOUT_CHUNK). */
export const DEFAULT_FANOUT_CHUNK = 200;

/**
 * One master event's fan-out to a slice of its master's subscriptions: a BullMQ job of the
 * copy-fanout queue (copy-workers.ts), or run inline by `CopyMirrorService.handleEntry`.
 */
export interface FanoutChunk {
  /** `<stream job id>/<event index>/<chunk index>` (fanoutChunkId). */
  id: string;
  event: MasterEvent;
  master: string;
  /** master equity in minor units, read once for the entry, so every chunk and every replay sizes alike */
  equity: string;
  /** subscription ids, a slice of the master's subscriptions opened up to the entry (a list that never changes) */
  subs: string[];
}

/**
 * The job id of a chunk. It is derived from the stream entry, the event's place in it (`3` for a
 * done or trigger event, `3t` / `3m` for the taker's or maker's side of a trade) and the chunk's
 * place in the event, so a re-dispatched entry adds no job twice. `/`, not `:`, separates the
 * parts, as in `streamJobId`: BullMQ refuses `:` in a custom job id.
 */
export const fanoutChunkId = (streamJobId: string, eventIndex: string, chunkIndex: number) => `${streamJobId}/${eventIndex}/${chunkIndex}`;

/**
 * Carries out one chunk in a fixed number of round trips, whatever its size: the master's position
 * and record with the chunk's subscriptions, then the subscriptions' views (mirror-actions.ts), the
 * decisions of mirror-plan.ts, then the actions, the chunk's follower orders in one engine call.
 * Idempotent: follower clientOrderIds name the master fill and are looked up first (the engine
 * answers a repeated one with the first order), closes carry their own clientOrderIds and act only
 * on an open follower position, a skip keeps its first reason.
 */
export class CopyFanout {
  constructor(
    private readonly d: CopyDeps,
    private readonly actions: MirrorActions,
    private readonly settlement: CopySettlementService,
  ) {}

  async run(c: FanoutChunk): Promise<MirrorOutcome> {
    const out = newOutcome();
    const [position, master, subs] = await Promise.all([
      this.d.reader.order(c.event.masterOrderId),
      this.d.store.master(c.master),
      this.d.store.subscriptions(c.subs),
    ]);
    if (!master || master.status !== 'Active' || position.acct !== master.id) return out;
    const view: EventView = { master, pair: await this.d.futures.orders.futuresPair(position.pair), position, equity: new BigNumber(c.equity) };
    const active = subs.filter((s) => s.active === '1');
    const views = await this.actions.subscriptionViews(c.event, active);
    await this.actions.execute(c.event, active, views.map((v) => planFollowerAction(c.event, view, v)), out);
    // the followers' stop loss and take profit, looked at whenever their master trades
    for (const sub of active) await this.settlement.enforceRiskControls(sub);
    return out;
  }
}
