import Redis from 'ioredis';
import { OrderRateLimiter, type RateLimitWindows } from '../../../src/transport/http/middleware/rate-limit';
import { Scripts } from '../../../src/platform/redis/scripts';
import { Keys } from '../../../src/platform/redis/keys';
import { createRedis, whenReady } from '../../../src/platform/redis/connection';
import { startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { testContext } from '../../support/harness';

/** Windows long enough that none turns while a case runs, however slow the box: the counts are exact. */
const LONG: RateLimitWindows = { steadyMs: 60_000, burstMs: 600_000 };

/**
 * The limiter's one script (lua/platform/consumeRateLimit-1.lua) against a real Redis. A case that
 * counts uses windows of minutes, so no window turns while it runs and the counts are exact.
 */
describe('OrderRateLimiter (one FCALL per request)', () => {
  let ctx: Awaited<ReturnType<typeof testContext>>;
  beforeAll(async () => {
    ctx = await testContext();
  });
  afterAll(async () => {
    await ctx?.cleanup();
  });

  /** The user's stored state: steady window start, steady count, burst window start, burst count. */
  async function stored(userId: string): Promise<number[]> {
    return ((await ctx.redis.get(ctx.keys.rateLimit(userId))) ?? '').split(' ').map(Number);
  }

  it('takes the steady points, then the burst, then refuses; the headers\' figures follow', async () => {
    const perSecond = 3;
    const burst = 5;
    const windows = { steadyMs: 60_000, burstMs: 10_000 };
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, perSecond, burst, windows);
    const states = [];
    for (let i = 0; i < 7; i++) states.push(await limiter.consume('seq'));
    // a fresh user's window: the steady bucket's whole window, the burst bucket not begun
    expect(states[0].resetMs).toBe(windows.steadyMs);
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, true, true, false, false]);
    // steady and burst together at first, one less per request, none once refused
    expect(states.map((s) => s.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const s of states.slice(1)) {
      expect(s.resetMs).toBeGreaterThan(windows.steadyMs / 2);
      expect(s.resetMs).toBeLessThanOrEqual(windows.steadyMs);
    }
    expect(states.filter((s) => s.allowed).every((s) => s.retryMs === 0)).toBe(true);
    // refused: allowed again when the first window turns, here the burst bucket's
    expect(states[5].retryMs).toBeGreaterThan(windows.burstMs / 2);
    expect(states[5].retryMs).toBeLessThanOrEqual(windows.burstMs);
    // refused requests count too (rate-limiter-flexible's fixed windows did the same)
    const [steadyStart, steadyUsed, burstStart, burstUsed] = await stored('seq');
    expect([steadyUsed, burstUsed]).toEqual([7, 7 - perSecond]);
    // the burst window began with the first request the steady bucket could not take
    expect(burstStart).toBeGreaterThanOrEqual(steadyStart);
  });

  it('allows exactly perSecond + burst points of requests sent at once, each remaining figure once', async () => {
    const perSecond = 10;
    const burst = 25;
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, perSecond, burst, LONG);
    expect((await limiter.consume('many')).remaining).toBe(burst - 1);
    const states = await Promise.all(Array.from({ length: 60 }, () => limiter.consume('many')));
    const allowed = states.filter((s) => s.allowed);
    expect(allowed).toHaveLength(burst - 1);
    expect(allowed.map((s) => s.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: burst - 1 }, (_, i) => i));
    expect(states.filter((s) => !s.allowed).every((s) => s.remaining === 0 && s.retryMs > 0)).toBe(true);
    // another user's buckets are untouched
    const other = await limiter.consume('bystander');
    expect(other).toMatchObject({ allowed: true, remaining: burst - 1 });
  });

  it('passes no more than the limit of one user\'s requests sent at once through several api processes', async () => {
    const perSecond = 7;
    const burst = 20;
    // each "process" its own connection, as each api process has
    const links = Array.from({ length: 4 }, () => createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster }));
    try {
      await Promise.all(links.map((l) => whenReady(l, 10_000)));
      const limiters = links.map((l) => new OrderRateLimiter(new Scripts(l, ctx.scripts.library), ctx.keys, perSecond, burst, LONG));
      const states = await Promise.all(Array.from({ length: 120 }, (_, i) => limiters[i % limiters.length].consume('crowd')));
      expect(states.filter((s) => s.allowed)).toHaveLength(burst);
      expect((await stored('crowd'))[1]).toBe(120);
    } finally {
      links.forEach((l) => l.disconnect());
    }
  });

  it('gives the steady points back when its window has passed, by the server\'s clock', async () => {
    const windows = { steadyMs: 200, burstMs: 600_000 };
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, 2, 3, windows);
    const first = [];
    for (let i = 0; i < 5; i++) first.push(await limiter.consume('turns'));
    expect(first.some((s) => !s.allowed)).toBe(true);
    await new Promise((r) => setTimeout(r, windows.steadyMs + 50));
    const after = await limiter.consume('turns');
    expect(after.allowed).toBe(true);
    // the steady count starts again at this request; the key stays (it lapses only when idle)
    expect((await stored('turns'))[1]).toBe(1);
    expect(await ctx.redis.pttl(ctx.keys.rateLimit('turns'))).toBeGreaterThan(windows.burstMs);
  });
});

/**
 * The limiter's writes are not replicated: with `appendfsync always` nothing reaches the AOF (so no
 * fsync per request) and a replica never sees the state. A plain SET, replicated, shows the probe
 * measures something.
 */
describe('OrderRateLimiter on a master with AOF (always) and a replica', () => {
  let master: RedisServerProcess;
  let replica: RedisServerProcess;
  let redis: Redis;
  let onReplica: Redis;
  beforeAll(async () => {
    master = await startRedisServer({ appendOnly: true, extraArgs: ['--appendfsync', 'always'] });
    replica = await startRedisServer({ extraArgs: ['--replicaof', '127.0.0.1', new URL(master.url).port] });
    redis = new Redis(master.url);
    onReplica = new Redis(replica.url);
    for (let i = 0; i < 100 && !/master_link_status:up/.test(await onReplica.info('replication')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await onReplica.info('replication')).toMatch(/master_link_status:up/);
  });
  afterAll(async () => {
    redis?.disconnect();
    onReplica?.disconnect();
    await replica?.stop();
    await master?.stop();
  });

  const aofSize = async () => Number(/aof_current_size:(\d+)/.exec(await redis.info('persistence'))?.[1]);

  it('writes nothing to the AOF or the replica, windows turning included', async () => {
    const keys = new Keys('rlaof');
    const scripts = new Scripts(redis);
    await scripts.preload();
    const limiter = new OrderRateLimiter(scripts, keys, 2, 3, { steadyMs: 50, burstMs: 100 });
    const before = await aofSize();
    const states = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 6; i++) states.push(...(await Promise.all(['u1', 'u2'].map((u) => limiter.consume(u)))));
      await new Promise((r) => setTimeout(r, 120));
    }
    expect(states.some((s) => s.allowed) && states.some((s) => !s.allowed)).toBe(true);
    expect(await redis.exists(keys.rateLimit('u1'))).toBe(1);
    expect(await aofSize()).toBe(before);
    // a replicated write does reach both, through the same link
    await redis.set('rlaof:probe', '1');
    expect(await aofSize()).toBeGreaterThan(before);
    await redis.wait(1, 5000);
    expect(await onReplica.get('rlaof:probe')).toBe('1');
    expect(await onReplica.exists(keys.rateLimit('u1'), keys.rateLimit('u2'))).toBe(0);
  });
});
