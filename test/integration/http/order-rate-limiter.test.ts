import { OrderRateLimiter } from '../../../src/transport/http/middleware/rate-limit';
import { testContext } from '../../support/harness';

/**
 * The limiter's one script (lua/platform/consumeRateLimit-2.lua) against a real Redis. A case that
 * counts holds the user's steady window open for a minute after the first request, so no window
 * turns while it runs (however slow the box) and the counts are exact.
 */
describe('OrderRateLimiter (one FCALL per request)', () => {
  let ctx: Awaited<ReturnType<typeof testContext>>;
  beforeAll(async () => {
    ctx = await testContext();
  });
  afterAll(async () => {
    await ctx?.cleanup();
  });

  const bucketKeys = (userId: string) =>
    (['orders', 'orders-burst'] as const).map((b) => `${ctx.keys.rateLimitBucket(b)}:${ctx.keys.rateLimitSubject(userId)}`);

  /** The first request of `userId`, whose steady window is then held open for a minute. */
  async function firstOfLongWindow(limiter: OrderRateLimiter, userId: string) {
    const first = await limiter.consume(userId);
    await ctx.redis.pexpire(bucketKeys(userId)[0], 60_000);
    return first;
  }

  it('takes the steady points, then the burst, then refuses; the headers\' figures follow', async () => {
    const perSecond = 3;
    const burst = 5;
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, perSecond, burst);
    const states = [await firstOfLongWindow(limiter, 'seq')];
    // a fresh user's window: the steady bucket's second, the burst bucket not begun
    expect(states[0].resetMs).toBe(1000);
    for (let i = 1; i < 7; i++) states.push(await limiter.consume('seq'));
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, true, true, false, false]);
    // steady and burst together at first, one less per request, none once refused
    expect(states.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const s of states.slice(1)) {
      expect(s.resetMs).toBeGreaterThan(50_000);
      expect(s.resetMs).toBeLessThanOrEqual(60_000);
    }
    expect(states.filter((s) => s.allowed).every((s) => s.retryMs === 0)).toBe(true);
    // refused: allowed again when the first window turns, here the burst bucket's 10 s
    expect(states[5].retryMs).toBeGreaterThan(5000);
    expect(states[5].retryMs).toBeLessThanOrEqual(10_000);
    // refused requests count too (rate-limiter-flexible's fixed windows did the same)
    const [steady, burstUsed] = await Promise.all(bucketKeys('seq').map((k) => ctx.redis.get(k)));
    expect([Number(steady), Number(burstUsed)]).toEqual([7, 7 - perSecond]);
  });

  it('allows exactly perSecond + burst points of requests sent at once, each remaining figure once', async () => {
    const perSecond = 10;
    const burst = 25;
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, perSecond, burst);
    expect((await firstOfLongWindow(limiter, 'many')).remaining).toBe(burst - 1);
    const states = await Promise.all(Array.from({ length: 60 }, () => limiter.consume('many')));
    const allowed = states.filter((s) => s.allowed);
    expect(allowed).toHaveLength(burst - 1);
    expect(allowed.map((s) => s.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: burst - 1 }, (_, i) => i));
    expect(states.filter((s) => !s.allowed).every((s) => s.remaining === 0 && s.retryMs > 0)).toBe(true);
    // another user's buckets are untouched
    const other = await limiter.consume('bystander');
    expect(other).toMatchObject({ allowed: true, remaining: burst - 1 });
  });

  it('starts fresh windows of 1 s (steady) and 10 s (burst) for a new user', async () => {
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, 2, 3);
    const first = await limiter.consume('fresh');
    expect(first).toMatchObject({ allowed: true, remaining: 2, retryMs: 0 });
    expect(first.resetMs).toBe(1000);
    // held open, so the next requests fall in the same steady window however slow the box
    const [steadyKey, burstKey] = bucketKeys('fresh');
    await ctx.redis.pexpire(steadyKey, 60_000);
    await limiter.consume('fresh');
    expect(await ctx.redis.exists(burstKey)).toBe(0);
    const fromBurst = await limiter.consume('fresh');
    expect(fromBurst).toMatchObject({ allowed: true, remaining: 0 });
    const burstTtl = await ctx.redis.pttl(burstKey);
    expect(burstTtl).toBeGreaterThan(5000);
    expect(burstTtl).toBeLessThanOrEqual(10_000);
  });
});
