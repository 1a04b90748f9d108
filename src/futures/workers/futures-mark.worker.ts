import type { ConnectionOptions } from 'bullmq';
import type { FuturesWorkerDeps } from './futures-worker-deps';
import { schedulePerShard, type ShardSchedules } from './futures-shard-schedule';

export const FUTURES_MARK_QUEUE = 'futures-mark';
const TICK_MS = 1000;

/**
 * The mark tick every second through a BullMQ job scheduler per engine shard: for every futures
 * market of the shard the index and mark are recomputed and stored, the basis and premium samples
 * taken, and positions swept at the new mark. The scripts are keyed by the second and the sample
 * slot, so a late or doubled tick adds no second sample.
 */
export function startFuturesMarkWorker(deps: FuturesWorkerDeps, connection: ConnectionOptions): Promise<ShardSchedules> {
  return schedulePerShard(
    deps,
    connection,
    { queue: FUTURES_MARK_QUEUE, scheduler: 'mark', job: 'tick', everyMs: TICK_MS, label: 'mark tick', jobOptions: { removeOnComplete: true, removeOnFail: { count: 100 } } },
    async (pairs, now) => {
      for (const p of pairs) await deps.futures.risk.tick(p.code, now);
    },
  );
}
