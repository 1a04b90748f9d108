import type BigNumber from 'bignumber.js';
import type { CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import { CopyFanout, DEFAULT_FANOUT_CHUNK, fanoutChunkId, type FanoutChunk } from './copy-fanout';
import { MirrorActions, newOutcome, type MirrorOutcome } from './mirror-actions';
import { eventUsers, masterEvents } from './mirror-plan';
import type { MarketEntry, MarketEvent } from '../platform/market-event';
import { streamJobId, type StreamJob } from '../platform/queues';

export { SkipReason, copyClientOrderId } from './mirror-plan';
export type { MirrorOutcome } from './mirror-actions';

/**
 * Mirrors masters' trading onto their active subscriptions (docs/copy-trading.md), from
 * the futures streams' `trade`, `done` and `trigger` events: each fill of a master's opening order,
 * each close fill (a partial close as a fraction), a position's end, a TP/SL change. `plan` cuts each
 * master event into chunks of subscriptions (the worker queues them as BullMQ jobs); `CopyFanout`
 * carries a chunk out with what mirror-plan.ts decides per subscription. Every step is idempotent.
 */
export class CopyMirrorService {
  readonly fanout: CopyFanout;
  private readonly actions: MirrorActions;

  constructor(
    private readonly d: CopyDeps,
    private readonly settlement: CopySettlementService,
    private readonly chunkSize = DEFAULT_FANOUT_CHUNK,
  ) {
    this.actions = new MirrorActions(d);
    this.fanout = new CopyFanout(d, this.actions, settlement);
  }

  /** The master fills a subscription did not mirror, with the reason of each. */
  skips(subscriptionId: string | number) {
    return this.d.store.skips(String(subscriptionId));
  }

  /**
   * The fan-out chunks of one futures stream entry: per master event, the master's subscriptions
   * opened up to the entry, `chunkSize` at a time. Reads only, but for one step: a position a
   * follower closed by hand in a finished subscription returns its leftover to the slave (idempotent).
   */
  async plan(entry: Pick<StreamJob, 'kind' | 'pair' | 'entryId' | 'events' | 'ts'>): Promise<FanoutChunk[]> {
    const closes = entry.events.filter((ev) => ev.e === 'done' && ev.status === 'closed');
    // one round trip for the copy roles of every user the entry names (most are neither)
    const roles = await this.d.store.copyRoles([...new Set([...eventUsers(entry.events), ...closes.map((ev) => ev.u)])]);
    for (const ev of closes) if (roles.followers.has(ev.u)) await this.returnLeftover(ev.id);
    if (roles.masters.size === 0) return [];
    const chunks: FanoutChunk[] = [];
    const equity = new Map<string, BigNumber>();
    const base = streamJobId(entry.kind, entry.pair, entry.entryId);
    for (const [i, raw] of entry.events.entries()) {
      for (const ev of masterEvents({ events: [raw], ts: entry.ts }, roles.masters)) {
        const view = await this.actions.eventView(ev, equity);
        if (!view) continue;
        const subs = await this.d.store.subscriptionIdsUpTo(view.master.id, entry.ts);
        const index = `${i}${side(raw, ev.masterOrderId)}`;
        for (let k = 0; k * this.chunkSize < subs.length; k++) {
          chunks.push({
            id: fanoutChunkId(base, index, k), event: ev, master: view.master.id, equity: view.equity.toFixed(0),
            subs: subs.slice(k * this.chunkSize, (k + 1) * this.chunkSize),
          });
        }
      }
    }
    return chunks;
  }

  /** One futures stream entry mirrored in this process, chunk after chunk (tests, tools; the worker queues the chunks). */
  async handleEntry(entry: Pick<MarketEntry, 'id' | 'events' | 'ts'>): Promise<MirrorOutcome> {
    const out = newOutcome();
    for (const c of await this.plan({ kind: 'futures', pair: '', entryId: entry.id, events: entry.events, ts: entry.ts })) {
      const o = await this.fanout.run(c);
      for (const k of Object.keys(out) as (keyof MirrorOutcome)[]) out[k] += o[k];
    }
    return out;
  }

  /**
   * A position left open by finishMasterCopy (closeOrders false) has closed: the free balance of the
   * finished subscription's account goes back to the slave account, as at the finish itself.
   */
  private async returnLeftover(orderId: string): Promise<void> {
    const h = await this.d.reader.order(orderId);
    if (h.kind !== 'futures' || h.role !== 'open') return;
    const sub = await this.d.store.subscriptionOfAccount(h.acct);
    if (!sub || sub.state === 'Active') return;
    await this.settlement.completeFinishing(sub.id);
  }
}

/** Which side of a trade a master event came from (`t` taker, `m` maker; '' for other events): part of its chunk ids. */
const side = (raw: MarketEvent, masterOrderId: string) => (raw.e !== 'trade' ? '' : raw.tpos === masterOrderId ? 't' : 'm');
