import { COPY_FANOUT_QUEUE, COPY_RESUME_QUEUE, COPY_SETTLEMENT_QUEUE } from '../../copy/copy-workers';
import { FUTURES_FUNDING_QUEUE } from '../../futures/workers/futures-funding.worker';
import { FUTURES_MARK_QUEUE } from '../../futures/workers/futures-mark.worker';
import { queueName } from '../../platform/queues';
import { STREAM_ROUTES } from './stream-routes';

/** Queues fed by a BullMQ job scheduler rather than by the stream dispatcher. */
export const SCHEDULED_QUEUES: readonly string[] = [FUTURES_FUNDING_QUEUE, FUTURES_MARK_QUEUE, COPY_SETTLEMENT_QUEUE, COPY_RESUME_QUEUE];

/** Queues fed by the jobs of another queue (a copy-mirror job adds its fan-out chunks). */
export const DERIVED_QUEUES: readonly string[] = [COPY_FANOUT_QUEUE];

/**
 * Every BullMQ queue the worker role consumes, by its plain name (src/platform/queues.ts adds the
 * hash tag). A new stream route appears here by itself; a new scheduled queue goes in the list
 * above (or in DERIVED_QUEUES). The queue dashboard shows exactly these, and its test fails when a worker consumes a
 * queue missing from here.
 */
export function workerQueueNames(): string[] {
  return [...new Set([...STREAM_ROUTES.map((r) => r.queue), ...SCHEDULED_QUEUES, ...DERIVED_QUEUES])];
}

/**
 * Every BullMQ queue the worker role consumes with `shardCount` engine shards: its BullMQ name, and
 * the name the dashboard shows (a dispatcher-fed queue once per shard, queues.ts).
 */
export function workerQueues(shardCount: number): { name: string; displayName: string }[] {
  const perShard = new Set(STREAM_ROUTES.map((r) => r.queue));
  return workerQueueNames().flatMap((name) =>
    Array.from({ length: perShard.has(name) ? shardCount : 1 }, (_, shard) => ({
      name: queueName(name, shard),
      displayName: shard === 0 ? name : `${name} (shard ${shard})`,
    })),
  );
}
