import { Queue, Worker, type ConnectionOptions, type DefaultJobOptions } from 'bullmq';
import { shardOfPair, type Pair } from '../../domain/market';
import { bullBase, queueName } from '../../platform/queues';
import { logErrorsThrottled } from '../../platform/redis/connection-watch';
import type { FuturesWorkerDeps } from './futures-worker-deps';

/** A job scheduler per engine shard and its workers, closed together. */
export interface ShardSchedules {
  queues: Queue[];
  workers: Worker[];
  close(): Promise<void>;
}

/**
 * A BullMQ job scheduler per engine shard (one schedule per shard however many workers run), each
 * job running `tick` for the futures markets of its shard only: a slow or unreachable shard holds up
 * no other's ticks. Shard 0's queue keeps its name from before shards (queues.ts).
 */
export async function schedulePerShard(
  deps: FuturesWorkerDeps,
  connection: ConnectionOptions,
  /** `scheduler`: the scheduler's id (kept from before shards, so shard 0's schedule is the one it had); `job`: its jobs' name. */
  what: { queue: string; scheduler: string; job: string; everyMs: number; jobOptions: DefaultJobOptions; label: string },
  tick: (pairs: Pair[], now: number) => Promise<void>,
): Promise<ShardSchedules> {
  const queues: Queue[] = [];
  const workers: Worker[] = [];
  for (let shard = 0; shard < deps.config.engineShards; shard++) {
    const queue = new Queue(queueName(what.queue, shard), { ...bullBase(deps.keys, connection), defaultJobOptions: what.jobOptions });
    logErrorsThrottled(queue, deps.log, `${what.label} queue`);
    await queue.upsertJobScheduler(what.scheduler, { every: what.everyMs }, { name: what.job });
    const worker = new Worker(
      queueName(what.queue, shard),
      async () => {
        const pairs = (await deps.markets.store.listPairs('futures')).filter((p) => shardOfPair(p) === shard);
        await tick(pairs, Date.now());
      },
      bullBase(deps.keys, connection),
    );
    worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id, shard }, `${what.label} job failed`));
    logErrorsThrottled(worker, deps.log, `${what.label} worker`);
    queues.push(queue);
    workers.push(worker);
  }
  return {
    queues,
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(queues.map((q) => q.close()));
    },
  };
}
