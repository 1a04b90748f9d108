import type { NextFunction, Request, Response } from 'express';
import type { Keys } from '../../../platform/redis/keys';
import type { Scripts } from '../../../platform/redis/scripts';
import { AppError } from '../../../domain/errors';
import { principal } from '../../../platform/http/principal';
import { withAccess } from '../../../platform/http/route-doc';

/** The buckets' windows: the steady bucket's points come back every second, the burst bucket's every 10 s. */
export interface RateLimitWindows {
  steadyMs: number;
  burstMs: number;
}
const WINDOWS: RateLimitWindows = { steadyMs: 1000, burstMs: 10_000 };
/** A user's limiter state goes after this long without a request (one DEL in the AOF per idle user, not one per window). */
const IDLE_STATE_MS = 60_000;

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
 * One FCALL of lua/platform/consumeRateLimit-1.lua per request, sent with whatever else the
 * connection writes in the same tick (docs/performance.md#http: rate-limiter-flexible's script
 * and its MULTI read of the burst bucket were two writes and a fifth of the API's socket time).
 * The function replicates nothing (no AOF write, so no fsync under `appendfsync always`; a
 * restart or failover starts the windows afresh: docs/performance.md, "The rate limiter's Redis
 * cost"). A master that lost the library gets it again from Scripts.run; one still loading its
 * AOF answers LOADING, which is a 503 like any Redis outage.
 */
export class OrderRateLimiter {
  readonly burstPoints: number;

  constructor(
    private readonly scripts: Scripts,
    private readonly keys: Keys,
    readonly perSecond: number,
    burst: number,
    private readonly windows: RateLimitWindows = WINDOWS,
  ) {
    this.burstPoints = Math.max(burst - perSecond, 1);
  }

  /** Takes one request of `userId`: from the steady bucket, else from the burst bucket, else refused. */
  async consume(userId: string): Promise<RateLimitState> {
    const { steadyMs, burstMs } = this.windows;
    const [allowed, remaining, resetMs, retryMs] = await this.scripts.run<number[]>(
      'consumeRateLimit',
      [this.keys.rateLimit(userId)],
      [this.perSecond, steadyMs, this.burstPoints, burstMs, Math.max(IDLE_STATE_MS, 2 * Math.max(steadyMs, burstMs))],
    );
    return { allowed: allowed === 1, remaining, resetMs, retryMs };
  }
}

/**
 * The order routes' limiter as middleware: every answer, a 429 included, carries
 * X-RateLimit-Limit (orders per second), X-RateLimit-Remaining (what the caller may still send
 * now, burst included) and X-RateLimit-Reset (seconds until the buckets are full again).
 */
export function orderRateLimit(scripts: Scripts, keys: Keys, perSecond: number, burst: number) {
  const limiter = new OrderRateLimiter(scripts, keys, perSecond, burst);
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
