import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../../domain/errors';
import type { Keys } from './keys';
import { isRedisUnavailable } from './unavailable';

/**
 * One exactly-once engine operation (docs/architecture.md, Exactly once): the key of its record,
 * how long the record is kept, and whether its id is derived from the client's own key, so that a
 * retry of the request is the same operation (and may reopen it after a fenced attempt).
 */
export interface Operation {
  key: string;
  ttlSeconds: number;
  keyed: boolean;
}

/**
 * How long a random operation's record stays. It only has to outlive the service's question after
 * a lost reply (well under a second), and every state-changing call writes one, so it is short.
 */
export const OPERATION_TTL_SECONDS = 120;

/**
 * How long a client's key is kept, and with it the record of every operation derived from it: a
 * retry within this window finds the first attempt's outcome, however long the outage in between.
 */
export const KEYED_RECORD_SECONDS = 24 * 3600;

/** A fresh operation: one per state-changing call outside a keyed request (its retry is a new operation). */
export function newOperation(keys: Keys): Operation {
  return { key: keys.operation(randomUUID()), ttlSeconds: OPERATION_TTL_SECONDS, keyed: false };
}

/** The request a state-changing call runs for, when the client keyed it: the seed its operation ids derive from. */
interface KeyedRequest {
  seed: string;
  /** Calls of each script on each target this request has made so far: the n-th gets the n-th id. */
  started: Map<string, number>;
}

const keyedRequest = new AsyncLocalStorage<KeyedRequest>();

/** A request the client keyed: who sent it, under which Idempotency-Key, and its canonical fingerprint. */
export interface KeyedRequestId {
  userId: string;
  key: string;
  fingerprint: string;
}

/**
 * Runs `fn` (a request's handling) with its operation ids derived from (user, key) and the
 * request's fingerprint: a function of those alone, not of the engine shard, so each shard's Keys
 * gives the record its own tag. The fingerprint keeps a key reused for another request once its
 * 24 h are over from ever meeting the first request's records.
 */
export function withKeyedOperations<T>(id: KeyedRequestId, fn: () => T): T {
  const seed = createHash('sha256').update(`${id.userId}\n${id.key}\n${id.fingerprint}`).digest('hex');
  return keyedRequest.run({ seed, started: new Map() }, fn);
}

/** Whether this runs for a keyed request (its engine calls then take derived operation ids). */
export function inKeyedRequest(): boolean {
  return keyedRequest.getStore() !== undefined;
}

/**
 * The operation of one call of `script` on `target` (the script's KEYS) in a keyed request: the
 * same id in every attempt of that request. The target names the call, not its place in the
 * request, so an attempt that meets fewer items (a loop over subscriptions, one of them finished
 * meanwhile) still pairs each call with its own record; the n-th call on one target gets the n-th id.
 * Undefined outside a keyed request.
 */
export function keyedOperation(keys: Keys, script: string, target: readonly string[]): Operation | undefined {
  const request = keyedRequest.getStore();
  if (!request) return undefined;
  const call = `${script}:${createHash('sha256').update(target.join('\n')).digest('hex').slice(0, 32)}`;
  const n = request.started.get(call) ?? 0;
  request.started.set(call, n + 1);
  return { key: keys.operation(`k:${request.seed}:${call}:${n}`), ttlSeconds: KEYED_RECORD_SECONDS, keyed: true };
}

/** The operation of one call of `script` on `target`: derived in a keyed request, else fresh. */
export function operationFor(keys: Keys, script: string, target: readonly string[]): Operation {
  return keyedOperation(keys, script, target) ?? newOperation(keys);
}

/**
 * How long the service keeps asking after a lost reply before it answers that it cannot tell: with
 * the engine connection's command timeout (REDIS_COMMAND_TIMEOUT_MS, 1 s by default) a request still answers within 2 s.
 */
export const LOST_REPLY_WINDOW_MS = 400;

/**
 * After a lost reply: asks (and fences) until the server answers or the window closes. `RAN` gives
 * the script's own reply; `NOT_RUN` is a 503 that says nothing was done; no answer at all is a 503
 * that says the outcome is unknown (a retry under the same key is the same operation and finds out).
 */
export async function lostReply<T>(fence: () => Promise<[string, T?]>): Promise<T> {
  // a local interval: the monotonic clock, which no wall-clock step moves
  const deadline = performance.now() + LOST_REPLY_WINDOW_MS;
  for (;;) {
    try {
      const [outcome, reply] = await fence();
      if (outcome === 'RAN') return reply as T;
      throw notApplied();
    } catch (err) {
      if (!isRedisUnavailable(err)) throw err;
      if (performance.now() >= deadline) {
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
