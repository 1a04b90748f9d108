import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { FuturesWorkerDeps } from './futures-worker-deps';
import { bullBase, queueName } from '../../platform/queues';
import { logErrorsThrottled } from '../../platform/redis/connection-watch';

export const FUTURES_FUNDING_QUEUE = 'futures-funding';
/** A scheduler tick that fires this early still settles the round starting at the boundary. */
const EARLY_TOLERANCE_MS = 5_000;

/**
 * Funding every FUNDING_INTERVAL_SECONDS through a BullMQ job scheduler (one schedule however many
 * workers run). Each tick settles the current round of every futures market; rounds are numbered
 * from the epoch and the Lua script settles each once, so repeated or overlapping ticks pay nothing twice.
 */
export async function startFuturesFundingWorker(
  deps: FuturesWorkerDeps,
  connection: ConnectionOptions,
): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(queueName(FUTURES_FUNDING_QUEUE), {
    ...bullBase(deps.keys, connection),
    defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
  });
  logErrorsThrottled(queue, deps.log, 'funding queue');
  await queue.upsertJobScheduler('funding', { every: deps.config.fundingIntervalSeconds * 1000 }, { name: 'round' });
  const worker = new Worker(
    queueName(FUTURES_FUNDING_QUEUE),
    async () => {
      const now = Date.now();
      for (const p of await deps.markets.store.listPairs('futures')) {
        await deps.futures.risk.runFundingRound(p.code, now, now + EARLY_TOLERANCE_MS);
      }
    },
    bullBase(deps.keys, connection),
  );
  worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, 'funding job failed'));
  logErrorsThrottled(worker, deps.log, 'funding worker');
  return { queue, worker };
}
