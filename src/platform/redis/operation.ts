import { randomUUID } from 'node:crypto';
import { AppError } from '../../domain/errors';
import type { Keys } from './keys';
import { isRedisUnavailable } from './unavailable';

/** One exactly-once engine operation: the key of its record and how long the record is kept. */
export interface Operation {
  key: string;
  ttlSeconds: number;
}

/** A fresh operation: one per state-changing call (a retry of a request is a new operation). */
export function newOperation(keys: Keys): Operation {
  return { key: keys.operation(randomUUID()), ttlSeconds: OPERATION_TTL_SECONDS };
}

/**
 * How long an operation record stays. It only has to outlive the service's question after a lost
 * reply (well under a second), and every state-changing call writes one, so it is short.
 */
export const OPERATION_TTL_SECONDS = 120;

/**
 * How long the service keeps asking after a lost reply before it answers that it cannot tell: with
 * the engine connection's command timeout (REDIS_COMMAND_TIMEOUT_MS, 1 s by default) a request still answers within 2 s.
 */
export const LOST_REPLY_WINDOW_MS = 400;

/**
 * After a lost reply: asks (and fences) until the server answers or the window closes. `RAN` gives
 * the script's own reply; `NOT_RUN` is a 503 that says nothing was done; no answer at all is a 503
 * that says the outcome is unknown (the record stays, so a retry under the same key finds it).
 */
export async function lostReply<T>(fence: () => Promise<[string, T?]>): Promise<T> {
  const deadline = Date.now() + LOST_REPLY_WINDOW_MS;
  for (;;) {
    try {
      const [outcome, reply] = await fence();
      if (outcome === 'RAN') return reply as T;
      throw notApplied();
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      if (Date.now() >= deadline) {
        throw new AppError(
          503,
          'ENGINE_UNAVAILABLE',
          'The engine did not answer; the request may have been carried out. Look it up, or retry with the same Idempotency-Key',
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The 503 for an operation known not to have run. */
export function notApplied(): AppError {
  return new AppError(503, 'ENGINE_UNAVAILABLE', 'The engine connection failed; nothing was done. Retry');
}
