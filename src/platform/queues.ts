import { Queue, type ConnectionOptions, type Worker } from 'bullmq';
import type { Keys, MarketKind } from './redis/keys';
import type { MarketEvent } from './market-event';

/** What the dispatcher hands to a queue: one market stream entry. */
export interface StreamJob {
  kind: MarketKind;
  pair: string;
  entryId: string;
  ts: number;
  seq?: number;
  /** The engine shard of the market (absent: 0). */
  shard?: number;
  events: MarketEvent[];
}

/**
 * Queue names carry their own hash tag, so each queue's keys share a slot (BullMQ's advice for
 * cluster). A queue the dispatcher feeds exists once per engine shard: shard 0 keeps the plain name
 * (jobs queued before shards stay in it), shard i's is `<name>.s<i>`, on a slot of its own.
 */
export const queueName = (name: string, shard = 0) => (shard === 0 ? `{${name}}` : `{${name}.s${shard}}`);

/** One worker per engine shard's queue of a dispatcher-fed queue, closed together. */
export function workerPerShard<T>(shardCount: number, make: (shard: number) => Worker<T>): { workers: Worker<T>[]; close(): Promise<void> } {
  const workers = Array.from({ length: shardCount }, (_, shard) => make(shard));
  return {
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/**
 * BullMQ cannot take `:` in a job id; the id is still the stream entry's, so adding the same entry
 * twice while the first job is kept adds nothing.
 */
export const streamJobId = (kind: MarketKind, pair: string, entryId: string) => `${kind}/${pair}/${entryId}`;

/** How long finished jobs stay, and with them the job-id guard against re-adding an entry. */
export const KEEP_JOBS = {
  removeOnComplete: { age: 3600, count: 50000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

export function bullBase(keys: Keys, connection: ConnectionOptions) {
  return { connection, prefix: keys.bullPrefix() };
}

export function openQueue<T = StreamJob>(keys: Keys, connection: ConnectionOptions, name: string, shard = 0): Queue<T> {
  return new Queue<T>(queueName(name, shard), {
    ...bullBase(keys, connection),
    defaultJobOptions: { ...KEEP_JOBS, attempts: 10, backoff: { type: 'exponential', delay: 500 } },
  });
}
