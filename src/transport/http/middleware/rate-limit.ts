import type { NextFunction, Request, Response } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisClient } from '../../../platform/redis/connection';
import type { Keys } from '../../../platform/redis/keys';
import { notApplied } from '../../../platform/redis/operation';
import { isRedisUnavailable } from '../../../platform/redis/unavailable';
import { AppError } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';

/** Consumes after a NOSCRIPT this many times more before answering 503. */
const NOSCRIPT_RETRIES = 2;

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
 * Per-user limit on order placement and cancel (docs/spot.md#rate-limit): `perSecond` steady,
 * with up to `burst` in one second drawn from a slower-refilling burst bucket (its points renewed
 * every 10 s). State lives in Redis, shared by all API instances, under a hash tag per user
 * (Keys.rateLimitSubject).
 *
 * The limiter runs its Lua by EVALSHA. A master restarted from its AOF answers LOADING to the
 * first EVAL on a new connection and NOSCRIPT afterwards, which ioredis passes on once its own
 * fallback has been used: the script did not run, so it is sent again (ioredis then sends the
 * script itself), and if the server still lacks it the request is a 503, never a 500.
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
    const subject = this.keys.rateLimitSubject(userId);
    // the burst bucket is read alongside, so an allowed request costs one round trip, as before the headers
    const [steady, burst] = await Promise.all([
      retried(() => this.steady.consume(subject)).catch((err: unknown) => {
        if (err instanceof RateLimiterRes) return { refused: err };
        throw err;
      }),
      retried(() => this.burst.get(subject)),
    ]);
    if ('refused' in steady) return this.fromBurst(subject, steady.refused);
    return {
      allowed: true,
      remaining: steady.remainingPoints + this.burstLeft(burst),
      resetMs: Math.max(steady.msBeforeNext, burst?.msBeforeNext ?? 0),
      retryMs: 0,
    };
  }

  private async fromBurst(subject: string, steady: RateLimiterRes): Promise<RateLimitState> {
    try {
      const burst = await retried(() => this.burst.consume(subject));
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
 * One limiter call, sent again after a NOSCRIPT (it did not run); a 503 when the server still lacks
 * the script. A read of the limiter is a MULTI: a master still loading its AOF refuses its commands
 * and discards the transaction (EXECABORT), so nothing ran there either: a 503 too.
 */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (isDiscardedWhileUnavailable(err)) throw notApplied();
      if (!isNoScript(err)) throw err;
      if (attempt >= NOSCRIPT_RETRIES) throw notApplied();
    }
  }
}

function isDiscardedWhileUnavailable(err: unknown): boolean {
  if (!(err instanceof Error) || !/^EXECABORT\b/.test(err.message)) return false;
  const previous = (err as Error & { previousErrors?: unknown[] }).previousErrors ?? [];
  return previous.some(isRedisUnavailable);
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && /^NOSCRIPT\b/.test(err.message);
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
