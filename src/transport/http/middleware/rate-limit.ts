import type { NextFunction, Request, Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../../../platform/redis/connection';
import type { Keys } from '../../../platform/redis/keys';
import { AppError } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';

/** Where a caller stands after one request: what the X-RateLimit-* headers and Retry-After say. */
export interface RateLimitState {
  allowed: boolean;
  /** Requests the caller may still send now, burst included. */
  remaining: number;
  /** Ms until both buckets are full again. */
  resetMs: number;
  /** Ms until a refused caller may send again (0 when allowed). */
  retryMs: number;
}

/**
 * Per-user limit on order placement and cancel (DESIGN 4, 6): `perSecond` steady, with up to
 * `burst` in one second drawn from a slower-refilling burst bucket (its points renewed every
 * 10 s). State lives in Redis under a hash tag per user, shared by all API instances.
 */
export class OrderRateLimiter {
  private readonly steady: RateLimiterRedis;
  private readonly burst: RateLimiterRedis;
  readonly burstPoints: number;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    readonly perSecond: number,
    burst: number,
  ) {
    this.burstPoints = Math.max(burst - perSecond, 1);
    this.steady = new RateLimiterRedis({ storeClient: redis, keyPrefix: keys.rateLimitBucket('orders'), points: perSecond, duration: 1 });
    this.burst = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: keys.rateLimitBucket('orders-burst'),
      points: this.burstPoints,
      duration: 10,
    });
  }

  /** Takes one request of `userId`: from the steady bucket, else from the burst bucket, else refused. */
  async consume(userId: string): Promise<RateLimitState> {
    const key = this.keys.rateLimitUser(userId);
    // the burst bucket is read alongside, so an allowed request costs one round trip, as before the headers
    const [steady, burst] = await Promise.all([
      this.steady.consume(key).catch((err: unknown) => {
        if (err instanceof RateLimiterRes) return { refused: err };
        throw err;
      }),
      this.burst.get(key),
    ]);
    if ('refused' in steady) return this.fromBurst(key, steady.refused);
    return {
      allowed: true,
      remaining: steady.remainingPoints + this.burstLeft(burst),
      resetMs: Math.max(steady.msBeforeNext, burst?.msBeforeNext ?? 0),
      retryMs: 0,
    };
  }

  private async fromBurst(key: string, steady: RateLimiterRes): Promise<RateLimitState> {
    try {
      const burst = await this.burst.consume(key);
      return {
        allowed: true,
        remaining: burst.remainingPoints,
        resetMs: Math.max(steady.msBeforeNext, burst.msBeforeNext),
        retryMs: 0,
      };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return {
        allowed: false,
        remaining: 0,
        resetMs: Math.max(steady.msBeforeNext, err.msBeforeNext),
        // the steady window turns first: the next request is allowed then
        retryMs: Math.min(steady.msBeforeNext, err.msBeforeNext),
      };
    }
  }

  private burstLeft(res: RateLimiterRes | null): number {
    return res ? Math.max(0, this.burstPoints - res.consumedPoints) : this.burstPoints;
  }
}

/**
 * The order routes' limiter as middleware: every answer, a 429 included, carries
 * X-RateLimit-Limit (orders per second), X-RateLimit-Remaining (what the caller may still send
 * now, burst included) and X-RateLimit-Reset (seconds until the buckets are full again).
 */
export function orderRateLimit(redis: RedisClient, keys: Keys, perSecond: number, burst: number) {
  const limiter = new OrderRateLimiter(redis, keys, perSecond, burst);
  return withAccess(async (req: Request, res: Response, next: NextFunction) => {
    let state: RateLimitState;
    try {
      state = await limiter.consume(principal(req).userId);
    } catch (err) {
      return next(err);
    }
    res.setHeader('X-RateLimit-Limit', String(limiter.perSecond));
    res.setHeader('X-RateLimit-Remaining', String(state.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(state.resetMs / 1000)));
    if (state.allowed) return next();
    const retry = Math.max(1, Math.ceil(state.retryMs / 1000));
    res.setHeader('Retry-After', String(retry));
    next(new AppError(429, 'RATE_LIMITED', `Too many order requests; retry in ${retry} s`));
  }, { rateLimited: true });
}
