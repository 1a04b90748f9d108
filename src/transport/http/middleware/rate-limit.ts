import type { NextFunction, Request, Response } from 'express';
import { BurstyRateLimiter, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../../../platform/redis/connection';
import type { Keys } from '../../../platform/redis/keys';
import { notApplied } from '../../../platform/redis/operation';
import { AppError } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';

/** Consumes after a NOSCRIPT this many times more before answering 503. */
const NOSCRIPT_RETRIES = 2;

/**
 * Per-user limit on order placement and cancel (docs/spot.md#rate-limit): `perSecond` steady, with up to `burst`
 * in one second drawn from a slower-refilling burst bucket. State lives in Redis, shared by all
 * API instances, under a hash tag per user (Keys.rateLimitSubject).
 *
 * The limiter runs its Lua by EVALSHA. A master restarted from its AOF answers LOADING to the
 * first EVAL on a new connection and NOSCRIPT afterwards, which ioredis passes on once its own
 * fallback has been used: the script did not run, so it is sent again (ioredis then sends the
 * script itself), and if the server still lacks it the request is a 503, never a 500.
 */
export function orderRateLimit(redis: RedisClient, keys: Keys, perSecond: number, burst: number) {
  const limiter = new BurstyRateLimiter(
    new RateLimiterRedis({ storeClient: redis, keyPrefix: keys.rateLimitBucket('orders'), points: perSecond, duration: 1 }),
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: keys.rateLimitBucket('orders-burst'),
      points: Math.max(burst - perSecond, 1),
      duration: 10,
    }),
  );
  const consume = async (subject: string): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        await limiter.consume(subject);
        return;
      } catch (err) {
        if (!isNoScript(err)) throw err;
        if (attempt >= NOSCRIPT_RETRIES) throw notApplied();
      }
    }
  };
  return withAccess(async (req: Request, res: Response, next: NextFunction) => {
    try {
      await consume(keys.rateLimitSubject(principal(req).userId));
      next();
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const retry = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        res.setHeader('Retry-After', String(retry));
        next(new AppError(429, 'RATE_LIMITED', `Too many order requests; retry in ${retry} s`));
        return;
      }
      next(err);
    }
  }, { rateLimited: true });
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && /^NOSCRIPT\b/.test(err.message);
}
