import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, badRequest, conflict } from '../../../domain/errors';
import { canonicalJson, canonicalUrl } from '../../../platform/http/canonical-request';
import { principal } from '../../../platform/http/principal';
import { accessOf, withAccess } from '../../../platform/http/route-doc';
import type { RedisClient } from '../../../platform/redis/connection';
import type { Keys } from '../../../platform/redis/keys';
import { KEYED_RECORD_SECONDS, withKeyedOperations } from '../../../platform/redis/operation';
import type { Scripts } from '../../../platform/redis/scripts';

/** How long the first answer to an Idempotency-Key is replayed (docs/architecture.md, Exactly once). */
export const IDEMPOTENCY_WINDOW_SECONDS = KEYED_RECORD_SECONDS;
/**
 * How long one attempt holds its key without renewing it: a repeat meanwhile is a 409. The attempt
 * renews it while it runs, however long that takes; one that cannot (its process died, or Redis
 * went away as it answered and the release failed) loses it within this, so the next retry soon
 * after finds out what it did instead of waiting.
 */
export const IDEMPOTENCY_LEASE_MS = 2000;
const LEASE_RENEW_MS = IDEMPOTENCY_LEASE_MS / 4;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `Idempotency-Key` on any POST/PUT/PATCH/DELETE (docs/architecture.md, Exactly once). The key
 * belongs to the caller and to one request (method, path and body, canonical: key order and number
 * spelling do not count); another request under it is a 422. The first answer is kept for 24 h and
 * a repeat gets it back (`Idempotent-Replayed: true`) and changes nothing; a repeat while an
 * attempt runs is a 409. Every engine operation of the request has an id derived from (user, key,
 * fingerprint), so an attempt after one whose outcome is unknown (a 503, a lost connection) is the same
 * operation: it finds what the first did and answers that, or runs it if it provably did not run.
 * Answers the caller may want to retry are not kept: a 5xx and a 429. Runs right after authentication.
 */
export function idempotency(redis: RedisClient, keys: Keys, scripts: Scripts): RequestHandler {
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
    const { userId } = principal(req);
    const keyHash = sha256(key);
    const record = keys.idempotency(userId, keyHash);
    const lease = keys.idempotencyLease(userId, keyHash);
    const fingerprint = sha256(`${req.method} ${canonicalUrl(req.originalUrl)} ${canonicalJson(req.body ?? null)}`);
    scripts
      .run<[string, string?]>('claimIdempotencyKey', [record, lease], [fingerprint, IDEMPOTENCY_WINDOW_SECONDS, IDEMPOTENCY_LEASE_MS])
      .then(([state, answer]) => {
        if (state === 'CLAIMED') {
          keepFirstAnswer(res, redis, record, lease);
          return withKeyedOperations({ userId, key, fingerprint }, next);
        }
        if (state === 'REUSED') {
          return next(
            new AppError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for another request', [
              { path: 'Idempotency-Key', message: 'already used with another method, path or body' },
            ]),
          );
        }
        if (state === 'RUNNING') {
          res.setHeader('Retry-After', '1');
          return next(conflict('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running; retry'));
        }
        const first = JSON.parse(answer as string) as { status: number; body: unknown };
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(first.status).json(first.body);
      })
      .catch(next);
  };
}

/**
 * Holds the lease while the attempt runs, and stores the answer before it is sent, so a repeat
 * never finds the key released without it.
 */
function keepFirstAnswer(res: Response, redis: RedisClient, record: string, lease: string) {
  const renew = setInterval(() => redis.pexpire(lease, IDEMPOTENCY_LEASE_MS).catch(() => undefined), LEASE_RENEW_MS);
  res.once('close', () => clearInterval(renew));
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    clearInterval(renew);
    const status = res.statusCode;
    const keep = status < 500 && status !== 429;
    const write = redis.multi();
    if (keep) write.hset(record, 'answer', JSON.stringify({ status, body })).expire(record, IDEMPOTENCY_WINDOW_SECONDS);
    // the answer goes out even when this cannot be written (Redis went away meanwhile): the
    // lease then lapses by itself, and the next attempt finds out what this one did
    write.del(lease).exec().catch(() => undefined).finally(() => send(body));
    return res;
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Authentication followed by the idempotency check, keeping the access mark the API reference reads. */
export function authenticatedOnce(auth: RequestHandler, idempotent: RequestHandler): RequestHandler {
  const both: RequestHandler = (req, res, next) => auth(req, res, (err?: unknown) => (err ? next(err) : idempotent(req, res, next)));
  // no default mark: a handler without one must stay visible to the API reference's coverage test
  const access = accessOf(auth);
  return access ? withAccess(both, { ...access, idempotencyKey: true }) : both;
}
