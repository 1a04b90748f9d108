import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { FuturesWorkerDeps } from './futures-worker-deps';
import { bullBase, queueName } from '../../platform/queues';

export const FUTURES_MARK_QUEUE = 'futures-mark';
const TICK_MS = 1000;

/**
 * The mark tick every second through a BullMQ job scheduler (one schedule however many workers
 * run): for every futures market the index and mark are recomputed and stored, the basis and
 * premium samples taken, and positions swept at the new mark. The scripts are keyed by the second
 * and the sample slot, so a late or doubled tick adds no second sample.
 */
export async function startFuturesMarkWorker(
  deps: FuturesWorkerDeps,
  connection: ConnectionOptions,
): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(queueName(FUTURES_MARK_QUEUE), {
    ...bullBase(deps.keys, connection),
    defaultJobOptions: { removeOnComplete: true, removeOnFail: { count: 100 } },
  });
  await queue.upsertJobScheduler('mark', { every: TICK_MS }, { name: 'tick' });
  const worker = new Worker(
    queueName(FUTURES_MARK_QUEUE),
    async () => {
      const now = Date.now();
      for (const p of await deps.markets.store.listPairs('futures')) await deps.futures.risk.tick(p.code, now);
    },
    bullBase(deps.keys, connection),
  );
  worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, 'mark tick failed'));
  return { queue, worker };
}
