import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { AppContext } from '../../transport/context';
import { bullBase, queueName } from '../../platform/queues';

export const FUTURES_FUNDING_QUEUE = 'futures-funding';
/** A scheduler tick that fires this early still settles the round starting at the boundary. */
const EARLY_TOLERANCE_MS = 5_000;

/**
 * Funding every FUNDING_INTERVAL_SECONDS through a BullMQ job scheduler (one schedule however many
 * workers run). Each tick settles the current round of every futures market; rounds are numbered
 * from the epoch and the Lua script settles each once, so repeated or overlapping ticks pay nothing twice.
 */
export async function startFuturesFundingWorker(
  ctx: AppContext,
  connection: ConnectionOptions,
): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(queueName(FUTURES_FUNDING_QUEUE), {
    ...bullBase(ctx, connection),
    defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
  });
  await queue.upsertJobScheduler('funding', { every: ctx.config.fundingIntervalSeconds * 1000 }, { name: 'round' });
  const worker = new Worker(
    queueName(FUTURES_FUNDING_QUEUE),
    async () => {
      const now = Date.now() + EARLY_TOLERANCE_MS;
      for (const p of await ctx.marketStore.listPairs('futures')) await ctx.futuresRisk.runFundingRound(p.code, now);
    },
    bullBase(ctx, connection),
  );
  worker.on('failed', (job, err) => ctx.log.error({ err, jobId: job?.id }, 'funding job failed'));
  return { queue, worker };
}
