import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, badRequest, conflict } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';
import { accessOf, withAccess } from '../../../platform/http/route-doc';
import type { RedisClient } from '../../../platform/redis/connection';
import type { Keys } from '../../../platform/redis/keys';

/** How long the first answer to an Idempotency-Key is replayed (docs/api-contract.md#exactly-once). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface Stored {
  fingerprint: string;
  status?: number;
  body?: unknown;
}

/**
 * `Idempotency-Key` on any POST/PUT/PATCH/DELETE (docs/api-contract.md#exactly-once): the first request under a key claims
 * it and runs; its answer is kept for 24 h and a repeat gets that answer back (with
 * `Idempotent-Replayed: true`) and changes nothing. A repeat while the first still runs is a 409; the
 * same key on another request (method, path or body) is a 422. Keys belong to the caller, so it runs
 * right after authentication. Answers the caller may want to retry are not kept: a 5xx (the claim is
 * released; the engine's own operation records keep a retried call from running twice) and a 429.
 */
export function idempotency(redis: RedisClient, keys: Keys): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = req.get('Idempotency-Key');
    if (key === undefined || !CHANGING.has(req.method)) return next();
    if (!KEY_PATTERN.test(key)) {
      return next(
        badRequest('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [
          { path: 'Idempotency-Key', message: 'invalid' },
        ]),
      );
    }
    const recordKey = keys.idempotency(principal(req).userId, sha256(key));
    const fingerprint = sha256(`${req.method} ${req.originalUrl} ${JSON.stringify(req.body ?? null)}`);
    const claim: Stored = { fingerprint };
    redis
      .set(recordKey, JSON.stringify(claim), 'EX', IDEMPOTENCY_WINDOW_SECONDS, 'NX')
      .then(async (claimed) => {
        if (claimed) return keepFirstAnswer(res, redis, recordKey, fingerprint, next);
        const prior = JSON.parse((await redis.get(recordKey)) ?? 'null') as Stored | null;
        if (!prior) return next(conflict('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key just ended; retry'));
        if (prior.fingerprint !== fingerprint) {
          return next(
            new AppError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another request', [
              { path: 'Idempotency-Key', message: 'already used with another method, path or body' },
            ]),
          );
        }
        if (prior.status === undefined) {
          res.setHeader('Retry-After', '1');
          return next(conflict('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running'));
        }
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(prior.status).json(prior.body);
      })
      .catch(next);
  };
}

/** Stores the answer before it is sent, so a repeat never finds the claim without it. */
function keepFirstAnswer(res: Response, redis: RedisClient, recordKey: string, fingerprint: string, next: NextFunction) {
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    const status = res.statusCode;
    const keep = status < 500 && status !== 429;
    const write = keep
      ? redis.set(recordKey, JSON.stringify({ fingerprint, status, body } satisfies Stored), 'EX', IDEMPOTENCY_WINDOW_SECONDS)
      : redis.del(recordKey);
    // the answer goes out even when the record cannot be written (Redis went away meanwhile)
    write.catch(() => undefined).finally(() => send(body));
    return res;
  };
  next();
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Authentication followed by the idempotency check, keeping the access mark the API reference reads. */
export function authenticatedOnce(auth: RequestHandler, idempotent: RequestHandler): RequestHandler {
  const both: RequestHandler = (req, res, next) => auth(req, res, (err?: unknown) => (err ? next(err) : idempotent(req, res, next)));
  // no default mark: a handler without one must stay visible to the API reference's coverage test
  const access = accessOf(auth);
  return access ? withAccess(both, { ...access, idempotencyKey: true }) : both;
}
