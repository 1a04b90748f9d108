import type { Queue } from 'bullmq';
import type { AppContext } from '../context';
import { createRedis } from '../../platform/redis/connection';
import { logErrorsThrottled } from '../../platform/redis/connection-watch';
import { moveLegacyCandles, startCandlesWorker, type ProcessorOptions } from '../../market-data';
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
    natMap: ctx.config.redisClusterNatMap,
    blocking: true,
    name: 'bullmq',
    log: ctx.log,
  });
  // every dispatcher-fed queue once per engine shard (queues.ts)
  const queues: Queue<StreamJob>[] = [];
  for (const name of new Set(STREAM_ROUTES.map((r) => r.queue))) {
    for (const k of ctx.shards.all()) {
      const queue = openQueue(ctx.keys, connection, name, k.shard);
      logErrorsThrottled(queue, ctx.log, `${queue.name} queue`);
      queues.push(queue);
    }
  }
  await moveLegacyCandles(ctx.redis, ctx.shards, ctx.markets.store, ctx.log);
  const candles = startCandlesWorker(ctx, connection, opts);
  const dispatcher = new EventDispatcher(ctx, STREAM_ROUTES, queues, opts);
  await dispatcher.start();
  return {
    async close() {
      await dispatcher.stop();
      await candles.close();
      await Promise.all(queues.map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    },
  };
}
