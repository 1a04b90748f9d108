import { Worker, type ConnectionOptions } from 'bullmq';
import type { Logger } from '../platform/config/logger';
import type { Keys } from '../platform/redis/keys';
import type { CandleService } from './candle.service';
import { bullBase, queueName, workerPerShard, type StreamJob } from '../platform/queues';
import { logErrorsThrottled } from '../platform/redis/connection-watch';

export interface ProcessorOptions {
  concurrency: number;
  /** A job whose worker died is given to another after this long. */
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/** Folds each dispatched stream entry's trades into the candles, from every engine shard's queue; the Lua fold ignores a replay. */
export function startCandlesWorker(
  deps: { keys: Keys; log: Logger; config: { engineShards: number }; marketData: { candles: CandleService } },
  connection: ConnectionOptions,
  opts: ProcessorOptions,
): { close(): Promise<void> } {
  return workerPerShard(deps.config.engineShards, (shard) => {
    const worker = new Worker<StreamJob>(
      queueName('candles', shard),
      async (job) => {
        const { kind, pair, entryId, ts, seq, events } = job.data;
        return deps.marketData.candles.apply(kind, pair, { id: entryId, ts, seq, events });
      },
      {
        ...bullBase(deps.keys, connection),
        concurrency: opts.concurrency,
        lockDuration: opts.lockDurationMs,
        stalledInterval: opts.stalledIntervalMs,
        maxStalledCount: 10,
      },
    );
    worker.on('failed', (job, err) => deps.log.error({ err, jobId: job?.id }, 'candles job failed'));
    logErrorsThrottled(worker, deps.log, 'candles worker');
    return worker;
  });
}
