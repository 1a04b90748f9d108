import type { ConnectionOptions } from 'bullmq';
import type { FuturesWorkerDeps } from './futures-worker-deps';
import { schedulePerShard, type ShardSchedules } from './futures-shard-schedule';

export const FUTURES_FUNDING_QUEUE = 'futures-funding';
/** A scheduler tick that fires this early still settles the round starting at the boundary. */
const EARLY_TOLERANCE_MS = 5_000;

/**
 * Funding every FUNDING_INTERVAL_SECONDS through a BullMQ job scheduler per engine shard. Each tick
 * settles the current round of every futures market of its shard; rounds are numbered from the
 * epoch and the Lua script settles each once, so repeated or overlapping ticks pay nothing twice.
 */
export function startFuturesFundingWorker(deps: FuturesWorkerDeps, connection: ConnectionOptions): Promise<ShardSchedules> {
  return schedulePerShard(
    deps,
    connection,
    {
      queue: FUTURES_FUNDING_QUEUE, scheduler: 'funding', job: 'round', everyMs: deps.config.fundingIntervalSeconds * 1000, label: 'funding',
      jobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
    },
    async (pairs, now) => {
      for (const p of pairs) await deps.futures.risk.runFundingRound(p.code, now, now + EARLY_TOLERANCE_MS);
    },
  );
}
