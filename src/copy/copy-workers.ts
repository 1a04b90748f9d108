import type { CopyBoard } from './copy-board';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { PlatformDeps } from '../platform/deps';
import type { CopyMirrorService } from './copy-mirror.service';
import type { CopySettlementService } from './copy-settlement.service';
import { createRedis } from '../platform/redis/connection';
import { bullBase, queueName, type StreamJob } from '../platform/queues';
import { logErrorsThrottled } from '../platform/redis/connection-watch';

/** The queue the dispatcher feeds with futures entries holding `done` events (src/transport/workers/stream-routes.ts). */
export const COPY_MIRROR_QUEUE = 'copy-mirror';
export const COPY_SETTLEMENT_QUEUE = 'copy-settlement';
const DAY_MS = 24 * 3600 * 1000;

/** What the copy processors need: the mirror and the settlement, and where queues live. */
export type CopyWorkerDeps = Pick<PlatformDeps, 'config' | 'keys' | 'log'> & {
  copy: { mirror: CopyMirrorService; settlement: CopySettlementService; board: CopyBoard };
};

/**
 * Mirrors each dispatched futures entry onto the masters' subscriptions. Follower orders carry a
 * deterministic clientOrderId and closes check the follower's status, so a replayed job places and
 * closes nothing twice; a job with a failed step throws, and BullMQ retries the whole entry.
 */
export function startCopyMirrorWorker(deps: CopyWorkerDeps, connection: ConnectionOptions, concurrency = 1): Worker<StreamJob> {
  const worker = new Worker<StreamJob>(
    queueName(COPY_MIRROR_QUEUE),
    async (job) => {
      const out = await deps.copy.mirror.handleEntry(job.data);
      if (out.failed > 0) throw new Error(`copy mirror: ${out.failed} step(s) failed`);
      return out;
    },
    { ...bullBase(deps.keys, connection), concurrency },
  );
  worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, 'copy mirror job failed'));
  logErrorsThrottled(worker, deps.log, 'copy mirror worker');
  return worker;
}

/** Daily settlement of management fees and profit shares, on a BullMQ job scheduler (one schedule however many workers run). */
export async function startCopySettlementWorker(deps: CopyWorkerDeps, connection: ConnectionOptions) {
  const queue = new Queue(queueName(COPY_SETTLEMENT_QUEUE), {
    ...bullBase(deps.keys, connection),
    defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
  });
  logErrorsThrottled(queue, deps.log, 'copy settlement queue');
  await queue.upsertJobScheduler('daily', { every: DAY_MS }, { name: 'settle' });
  const worker = new Worker(queueName(COPY_SETTLEMENT_QUEUE), () => deps.copy.settlement.settleAll(), bullBase(deps.keys, connection));
  worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, 'copy settlement job failed'));
  logErrorsThrottled(worker, deps.log, 'copy settlement worker');
  return { queue, worker };
}

/** The copy-trading processors of the worker role: mirroring and the daily settlement. */
export async function startCopyWorkers(deps: CopyWorkerDeps): Promise<{ close(): Promise<void> }> {
  // a deployment with history: the trading aggregates and the leaderboard, once (docs/copy-trading.md)
  await deps.copy.board.backfill();
  const connection = createRedis({
    url: deps.config.redisUrl,
    cluster: deps.config.redisCluster,
    blocking: true,
    name: 'copy-workers',
    log: deps.log,
  });
  const mirror = startCopyMirrorWorker(deps, connection);
  const settlement = await startCopySettlementWorker(deps, connection);
  return {
    async close() {
      await mirror.close();
      await settlement.worker.close();
      await settlement.queue.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
