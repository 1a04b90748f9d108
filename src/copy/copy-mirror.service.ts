import type { CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import { CopyFanout, DEFAULT_FANOUT_CHUNK, fanoutChunkId, newOutcome, type FanoutChunk, type MirrorOutcome } from './copy-fanout';
import type { MarketEntry } from '../platform/market-event';
import { streamJobId, type StreamJob } from '../platform/queues';

export { SkipReason, copyClientOrderId } from './mirror-plan';
export type { MirrorOutcome } from './copy-fanout';

/**
 * Mirrors masters' trading onto their active subscriptions (DESIGN 4), from the `done` events of
 * the futures streams. A master order is mirrored once it stops working (filled, or its rest
 * expired or cancelled) for the quantity it filled; when a master position closes, the mirrored
 * positions close. `plan` cuts each master event into chunks of subscriptions (the worker queues
 * them as BullMQ jobs), `CopyFanout` carries a chunk out; every step is idempotent.
 */
export class CopyMirrorService {
  readonly fanout: CopyFanout;

  constructor(
    private readonly d: CopyDeps,
    private readonly settlement: CopySettlementService,
    private readonly chunkSize = DEFAULT_FANOUT_CHUNK,
  ) {
    this.fanout = new CopyFanout(d, settlement);
  }

  /** The master orders a subscription did not mirror, with the reason of each. */
  skips(subscriptionId: string | number) {
    return this.d.store.skips(String(subscriptionId));
  }

  /**
   * The fan-out chunks of one futures stream entry: per master event (a master order that stopped
   * working with a fill, or a master position closed), the master's subscriptions opened up to the
   * entry, `chunkSize` at a time. Reads only, but for one step: a position a follower closed by
   * hand in a finished subscription returns its leftover to the slave (idempotent).
   */
  async plan(entry: Pick<StreamJob, 'kind' | 'pair' | 'entryId' | 'events' | 'ts'>): Promise<FanoutChunk[]> {
    const chunks: FanoutChunk[] = [];
    // one round trip for the copy roles of every user ending an order here (most are neither)
    const dones = [...entry.events.entries()].filter(([, ev]) => ev.e === 'done');
    const roles = await this.d.store.copyRoles([...new Set(dones.map(([, ev]) => ev.u))]);
    for (const [index, ev] of dones) {
      const closedByFollower = ev.status === 'closed' && roles.followers.has(ev.u);
      if (!closedByFollower && !roles.masters.has(ev.u)) continue;
      const h = await this.d.reader.order(ev.id);
      if (h.kind !== 'futures' || h.role !== 'open') continue;
      if (closedByFollower) await this.returnLeftover(h.acct);
      const master = await this.d.store.master(h.acct);
      if (!master || master.status !== 'Active') continue;
      const kind = ev.status === 'closed' ? 'close' : 'open';
      if (kind === 'open' && !(Number(h.filled) > 0)) continue;
      const [subs, state] = await Promise.all([
        this.d.store.subscriptionIdsUpTo(master.id, entry.ts),
        kind === 'open' ? this.d.reader.state(master.id) : null,
      ]);
      if (subs.length === 0) continue;
      const equity = state?.equity.toFixed(0) ?? '0';
      const base = streamJobId(entry.kind, entry.pair, entry.entryId);
      for (let i = 0; i * this.chunkSize < subs.length; i++) {
        chunks.push({
          id: fanoutChunkId(base, index, i), kind, master: master.id, masterOrderId: h.id, at: entry.ts, equity,
          subs: subs.slice(i * this.chunkSize, (i + 1) * this.chunkSize),
        });
      }
    }
    return chunks;
  }

  /** One futures stream entry mirrored in this process, chunk after chunk (tests, tools; the worker queues the chunks). */
  async handleEntry(entry: Pick<MarketEntry, 'id' | 'events' | 'ts'> & { pair?: string }): Promise<MirrorOutcome> {
    const out = newOutcome();
    const chunks = await this.plan({ kind: 'futures', pair: entry.pair ?? '', entryId: entry.id, events: entry.events, ts: entry.ts });
    for (const c of chunks) {
      const o = await this.fanout.run(c);
      out.placed += o.placed;
      out.skipped += o.skipped;
      out.closed += o.closed;
      out.failed += o.failed;
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
}
