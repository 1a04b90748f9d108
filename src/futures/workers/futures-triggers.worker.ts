import { Worker, type ConnectionOptions } from 'bullmq';
import type { FuturesWorkerDeps } from './futures-worker-deps';
import { bullBase, queueName, workerPerShard, type StreamJob } from '../../platform/queues';
import { logErrorsThrottled } from '../../platform/redis/connection-watch';

/** The queue the dispatcher feeds with futures trades, index changes and spot trades (mark moves). */
export const FUTURES_TRIGGERS_QUEUE = 'futures-triggers';

/**
 * After each market event: TP/SL of the futures market at its last price, then liquidations at its
 * mark. A spot trade moves the mark of the futures market with the same code. Sweeps are atomic Lua
 * calls and find nothing to do when repeated, so a replayed job is harmless.
 */
export function startFuturesTriggersWorker(deps: FuturesWorkerDeps, connection: ConnectionOptions, concurrency = 4): { close(): Promise<void> } {
  // one worker per engine shard's queue (the dispatcher feeds each shard's own, queues.ts)
  return workerPerShard(deps.config.engineShards, (shard) => {
    const worker = new Worker<StreamJob>(
      queueName(FUTURES_TRIGGERS_QUEUE, shard),
      async (job) => {
        const { kind, pair } = job.data;
        if (!(await deps.markets.store.getPair('futures', pair))) return;
        if (kind === 'futures') await deps.futures.risk.sweep(pair);
        else await deps.futures.risk.sweepLiquidations(pair);
      },
      { ...bullBase(deps.keys, connection), concurrency },
    );
    worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, 'futures trigger job failed'));
    logErrorsThrottled(worker, deps.log, 'futures triggers worker');
    return worker;
  });
}
