import type { CopyBoard } from './copy-board';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { PlatformDeps } from '../platform/deps';
import type { CopyMirrorService } from './copy-mirror.service';
import type { CopySettlementService } from './copy-settlement.service';
import type { FanoutChunk } from './copy-fanout';
import { createRedis } from '../platform/redis/connection';
import { bullBase, openQueue, queueName, workerPerShard, type StreamJob } from '../platform/queues';
import { logErrorsThrottled } from '../platform/redis/connection-watch';

/** The queue the dispatcher feeds with futures entries holding `done` events (src/transport/workers/stream-routes.ts). */
export const COPY_MIRROR_QUEUE = 'copy-mirror';
/** One job per chunk of subscriptions of one master event, added by the copy-mirror jobs. */
export const COPY_FANOUT_QUEUE = 'copy-fanout';
export const COPY_SETTLEMENT_QUEUE = 'copy-settlement';
/** Finishes and master closes a crashed process left between steps, taken up every few seconds. */
export const COPY_RESUME_QUEUE = 'copy-resume';
const DAY_MS = 24 * 3600 * 1000;
const RESUME_EVERY_MS = 5_000;

/** What the copy processors need: the mirror and the settlement, and where queues live. */
export type CopyWorkerDeps = Pick<PlatformDeps, 'config' | 'keys' | 'log'> & {
  copy: { mirror: CopyMirrorService; settlement: CopySettlementService; board: CopyBoard };
};

/** Worker knobs; tests that kill workers shorten the lock so a dead worker's job is taken over soon. */
export interface CopyWorkerOptions {
  /** fan-out chunks run at once per process */
  fanoutConcurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

export const COPY_WORKER_DEFAULTS: CopyWorkerOptions = { fanoutConcurrency: 4, lockDurationMs: 30_000, stalledIntervalMs: 30_000 };

const workerOpts = (deps: CopyWorkerDeps, connection: ConnectionOptions, o: CopyWorkerOptions, concurrency = 1) => ({
  ...bullBase(deps.keys, connection),
  concurrency,
  lockDuration: o.lockDurationMs,
  stalledInterval: o.stalledIntervalMs,
});

function watch(deps: CopyWorkerDeps, worker: Worker, what: string): void {
  worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, `${what} job failed`));
  logErrorsThrottled(worker, deps.log, `${what} worker`);
}

/**
 * The mirror in two hops. A copy-mirror job (one dispatched futures entry) cuts each master event
 * into chunks of subscriptions and adds one copy-fanout job per chunk, its id derived from the
 * entry's (a re-dispatched entry, or a retried job, adds no job twice). A copy-fanout job mirrors
 * one chunk; follower orders carry deterministic clientOrderIds and closes check the follower's
 * status, so a chunk re-run after a crash or a failed step places and closes nothing twice.
 */
export function startCopyMirrorWorker(deps: CopyWorkerDeps, connection: ConnectionOptions, opts: Partial<CopyWorkerOptions> = {}) {
  const o = { ...COPY_WORKER_DEFAULTS, ...opts };
  const fanoutQueue = openQueue<FanoutChunk>(deps.keys, connection, COPY_FANOUT_QUEUE);
  logErrorsThrottled(fanoutQueue, deps.log, 'copy fanout queue');
  // one worker per engine shard's copy-mirror queue (the dispatcher feeds each shard's own, queues.ts)
  const entries = workerPerShard(deps.config.engineShards, (shard) => {
    const worker = new Worker<StreamJob>(
      queueName(COPY_MIRROR_QUEUE, shard),
      async (job) => {
        const chunks = await deps.copy.mirror.plan(job.data);
        await fanoutQueue.addBulk(chunks.map((c) => ({ name: c.event.kind, data: c, opts: { jobId: c.id } })));
        return chunks.length;
      },
      workerOpts(deps, connection, o),
    );
    watch(deps, worker, 'copy mirror');
    return worker;
  });
  const chunks = new Worker<FanoutChunk>(
    queueName(COPY_FANOUT_QUEUE),
    async (job) => {
      const out = await deps.copy.mirror.fanout.run(job.data);
      if (out.failed > 0) throw new Error(`copy fan-out: ${out.failed} step(s) failed`);
      return out;
    },
    workerOpts(deps, connection, o, o.fanoutConcurrency),
  );
  watch(deps, chunks, 'copy fan-out');
  return {
    async close() {
      await entries.close();
      await chunks.close();
      await fanoutQueue.close();
    },
  };
}

/** A queue with one job scheduler (one schedule however many workers run) and its worker. */
async function scheduled(deps: CopyWorkerDeps, connection: ConnectionOptions, name: string, scheduler: string, every: number, run: () => Promise<unknown>) {
  const queue = new Queue(queueName(name), {
    ...bullBase(deps.keys, connection),
    defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 1000 } },
  });
  logErrorsThrottled(queue, deps.log, `${name} queue`);
  await queue.upsertJobScheduler(scheduler, { every }, { name: scheduler });
  const worker = new Worker(queueName(name), run, bullBase(deps.keys, connection));
  watch(deps, worker, name);
  return {
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}

/**
 * The copy-trading processors of the worker role: mirroring, the daily settlement of fees and
 * profit shares, and the resumption of finishes and master closes a crash left half done.
 */
export async function startCopyWorkers(deps: CopyWorkerDeps, opts: Partial<CopyWorkerOptions> = {}): Promise<{ close(): Promise<void> }> {
  // a deployment with history: the trading aggregates and the leaderboard, once (docs/copy-trading.md)
  await deps.copy.board.backfill();
  const connection = createRedis({
    url: deps.config.redisUrl,
    cluster: deps.config.redisCluster,
    natMap: deps.config.redisClusterNatMap,
    blocking: true,
    name: 'copy-workers',
    log: deps.log,
  });
  const parts = [
    startCopyMirrorWorker(deps, connection, { fanoutConcurrency: deps.config.copyFanoutConcurrency, ...opts }),
    await scheduled(deps, connection, COPY_SETTLEMENT_QUEUE, 'daily', DAY_MS, () => deps.copy.settlement.settleAll()),
    await scheduled(deps, connection, COPY_RESUME_QUEUE, 'resume', RESUME_EVERY_MS, () => deps.copy.settlement.resume()),
  ];
  return {
    async close() {
      for (const p of parts) await p.close();
      await connection.quit().catch(() => undefined);
    },
  };
}
