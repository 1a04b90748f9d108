import type { NextFunction, Request, Response } from 'express';
import { BurstyRateLimiter, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../../../platform/redis/connection';
import { AppError } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';

/**
 * Per-user limit on order placement and cancel (docs/spot.md#rate-limit): `perSecond` steady, with up to `burst`
 * in one second drawn from a slower-refilling burst bucket. State lives in Redis, shared by all
 * API instances.
 */
export function orderRateLimit(redis: RedisClient, prefix: string, perSecond: number, burst: number) {
  const limiter = new BurstyRateLimiter(
    new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:{rl}:orders`, points: perSecond, duration: 1 }),
    new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:{rl}:orders-burst`,
      points: Math.max(burst - perSecond, 1),
      duration: 10,
    }),
  );
  return withAccess(async (req: Request, res: Response, next: NextFunction) => {
    try {
      await limiter.consume(principal(req).userId);
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
