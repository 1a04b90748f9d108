import type { ChainableCommander } from 'ioredis';
import { nowMs } from './stats';

type PipelineSource = { pipeline(): ChainableCommander };

export interface PipelinedRun {
  elapsedMs: number;
  /** Round trip of each batch, send to last reply, in ms. */
  batchMs: number[];
  /** Replies that were errors, or that `isOk` refused. */
  errors: number;
  firstError?: string;
}

export interface PipelinedOptions<T> {
  items: readonly T[];
  queue(pipeline: ChainableCommander, item: T): void;
  batchSize: number;
  /**
   * Batches in flight at once. Two keeps the server busy while the client encodes the next batch
   * (on a 2-core box a strictly serial loop leaves Redis idle half the time); commands still
   * reach Redis in order on the one connection.
   */
  inFlight: number;
  isOk?(reply: unknown): boolean;
  /** Called with each batch once its replies are in (progress display). */
  onBatch?(batch: readonly T[]): void;
}

/** Sends `items` in pipelined batches over one connection and times the whole and each batch. */
export async function runPipelined<T>(client: PipelineSource, o: PipelinedOptions<T>): Promise<PipelinedRun> {
  const batchMs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const start = nowMs();

  const worker = async () => {
    while (next < o.items.length) {
      const from = next;
      const to = Math.min(o.items.length, from + o.batchSize);
      next = to;
      const p = client.pipeline();
      for (let i = from; i < to; i++) o.queue(p, o.items[i]);
      const t0 = nowMs();
      const replies = (await p.exec()) ?? [];
      batchMs.push(nowMs() - t0);
      for (const [err, reply] of replies) {
        if (err || (o.isOk && !o.isOk(reply))) {
          errors++;
          firstError ??= err ? String(err) : JSON.stringify(reply).slice(0, 200);
        }
      }
      o.onBatch?.(o.items.slice(from, to));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.inFlight) }, worker));
  return { elapsedMs: nowMs() - start, batchMs, errors, firstError };
}
