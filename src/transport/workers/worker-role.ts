import type { Queue } from 'bullmq';
import type { AppContext } from '../context';
import { createRedis } from '../../platform/redis/connection';
import { logErrorsThrottled } from '../../platform/redis/connection-watch';
import { startCandlesWorker, type ProcessorOptions } from '../../market-data/candles.worker';
import { DISPATCHER_DEFAULTS, EventDispatcher, type DispatcherOptions } from './event-dispatcher';
import { openQueue, type StreamJob } from '../../platform/queues';
import { STREAM_ROUTES } from './stream-routes';

export type WorkerRoleOptions = DispatcherOptions & ProcessorOptions;

export const WORKER_DEFAULTS: WorkerRoleOptions = {
  ...DISPATCHER_DEFAULTS,
  concurrency: 16,
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
};

/**
 * The worker role: the stream dispatcher and the BullMQ processors. Any number may run at once;
 * they share the dispatcher's consumer group and the queues, and keep nothing of their own.
 */
export async function startWorkerRole(
  ctx: AppContext,
  overrides: Partial<WorkerRoleOptions> = {},
): Promise<{ close(): Promise<void> }> {
  const opts = { ...WORKER_DEFAULTS, ...overrides };
  const connection = createRedis({
    url: ctx.config.redisUrl,
    cluster: ctx.config.redisCluster,
    blocking: true,
    name: 'bullmq',
    log: ctx.log,
  });
  const queues = new Map<string, Queue<StreamJob>>();
  for (const r of STREAM_ROUTES) {
    if (queues.has(r.queue)) continue;
    const queue = openQueue(ctx.keys, connection, r.queue);
    logErrorsThrottled(queue, ctx.log, `${r.queue} queue`);
    queues.set(r.queue, queue);
  }
  const candles = startCandlesWorker(ctx, connection, opts);
  const dispatcher = new EventDispatcher(ctx, STREAM_ROUTES, queues, opts);
  await dispatcher.start();
  return {
    async close() {
      await dispatcher.stop();
      await candles.close();
      await Promise.all([...queues.values()].map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    },
  };
}
