import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { AppContext } from '../transport/context';
import { createRedis } from '../platform/redis/connection';
import { bullBase, queueName, type StreamJob } from '../platform/queues';

/** The queue the dispatcher feeds with futures entries holding `done` events (src/transport/workers/stream-routes.ts). */
export const COPY_MIRROR_QUEUE = 'copy-mirror';
export const COPY_SETTLEMENT_QUEUE = 'copy-settlement';
const DAY_MS = 24 * 3600 * 1000;

/**
 * Mirrors each dispatched futures entry onto the masters' subscriptions. Follower orders carry a
 * deterministic clientOrderId and closes check the follower's status, so a replayed job places and
 * closes nothing twice; a job with a failed step throws, and BullMQ retries the whole entry.
 */
export function startCopyMirrorWorker(ctx: AppContext, connection: ConnectionOptions, concurrency = 1): Worker<StreamJob> {
  const worker = new Worker<StreamJob>(
    queueName(COPY_MIRROR_QUEUE),
    async (job) => {
      const out = await ctx.copyMirror.handleEntry(job.data);
      if (out.failed > 0) throw new Error(`copy mirror: ${out.failed} step(s) failed`);
      return out;
    },
    { ...bullBase(ctx, connection), concurrency },
  );
  worker.on('failed', (job, err) => ctx.log.error({ err, jobId: job?.id }, 'copy mirror job failed'));
  return worker;
}

/** Daily settlement of management fees and profit shares, on a BullMQ job scheduler (one schedule however many workers run). */
export async function startCopySettlementWorker(ctx: AppContext, connection: ConnectionOptions) {
  const queue = new Queue(queueName(COPY_SETTLEMENT_QUEUE), {
    ...bullBase(ctx, connection),
    defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
  });
  await queue.upsertJobScheduler('daily', { every: DAY_MS }, { name: 'settle' });
  const worker = new Worker(queueName(COPY_SETTLEMENT_QUEUE), () => ctx.copySettlement.settleAll(), bullBase(ctx, connection));
  worker.on('failed', (job, err) => ctx.log.error({ err, jobId: job?.id }, 'copy settlement job failed'));
  return { queue, worker };
}

/** The copy-trading processors of the worker role: mirroring and the daily settlement. */
export async function startCopyWorkers(ctx: AppContext): Promise<{ close(): Promise<void> }> {
  const connection = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true, name: 'copy-workers' });
  const mirror = startCopyMirrorWorker(ctx, connection);
  const settlement = await startCopySettlementWorker(ctx, connection);
  return {
    async close() {
      await mirror.close();
      await settlement.worker.close();
      await settlement.queue.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
