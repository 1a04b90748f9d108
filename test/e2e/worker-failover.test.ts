import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { createRedis } from '../../src/platform/redis/connection';
import { parseEvents } from '../../src/platform/market-event';
import { DISPATCH_GROUP } from '../../src/transport/workers/event-dispatcher';
import { openQueue } from '../../src/platform/queues';
import { startWorkerRole } from '../../src/transport/workers/worker-role';
import { referenceCandles, type Fill } from '../support/candle-reference';
import { createApp, TEST_SECRET, testContext } from '../support/harness';
import { fundTraders, randomTrading, rng } from '../support/random-trading';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;
let child: ChildProcess | undefined;
let worker: { close(): Promise<void> } | undefined;

const FAST = {
  claimIdleMs: 1000,
  claimEveryMs: 300,
  lockDurationMs: 2000,
  stalledIntervalMs: 500,
  blockMs: 200,
};
const ROOT = resolve(__dirname, '../..');

/** Every fill of a market's stream, as the candles must count it: once each. */
async function streamFills(pair: string, digits: { price: number; amount: number }) {
  const entries = await ctx.redis.xrange(ctx.keys.events('spot', pair), '-', '+');
  const fills: Fill[] = [];
  let withTrades = 0;
  for (const [, f] of entries) {
    const ts = Number(f[f.indexOf('ts') + 1]);
    const trades = parseEvents(f[f.indexOf('ev') + 1]).filter(
      (e) => e.e === 'trade',
    );
    if (trades.length) withTrades++;
    for (const t of trades)
      fills.push({ ts, price: Number(t.p) / 10 ** digits.price, qty: Number(t.q) / 10 ** digits.amount });
  }
  return { fills, withTrades };
}

/** A flat [field, value, …] reply (XINFO) as an object. */
const fieldsOf = (flat: unknown[]) =>
  Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [String(flat[2 * i]), flat[2 * i + 1]])) as Record<string, unknown>;

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function expectCandlesExactlyOnce(pair: string, digits: { price: number; amount: number }) {
  const { fills, withTrades } = await streamFills(pair, digits);
  await until(
    'every entry with trades in the candles',
    async () => (await ctx.redis.zcard(ctx.keys.candlesApplied('spot', pair))) === withTrades,
  );
  const from = new Date(fills[0].ts - 60_000).toISOString();
  const to = new Date(fills[fills.length - 1].ts + 60_000).toISOString();
  for (const period of [60, 2592000]) {
    const r = await request(app)
      .get('/api/futures/exchange-data/candles')
      .query({ CurrencyPair: pair, Kind: 'spot', CandleTimePeriod: period, DateFrom: from, DateTo: to });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(referenceCandles(pair, fills, period, digits));
  }
  return fills.length;
}

beforeEach(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  await fundTraders(ctx, 'BTC', 'USDT');
});
afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await worker?.close();
  worker = undefined;
  await ctx.cleanup();
});

describe('worker failover', () => {
  it('a worker process killed mid-burst is taken over, and every deal is in the candles exactly once', async () => {
    // One process (tsx as a loader, not its CLI, which would run the script in a child of its own).
    child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/support/worker-child.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        REDIS_URL: ctx.config.redisUrl,
        KEY_PREFIX: ctx.config.keyPrefix,
        JWT_SECRET: TEST_SECRET,
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((ready, fail) => {
      child!.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && ready());
      child!.once('exit', (code) => fail(new Error(`worker child exited with ${code}`)));
    });
    const random = rng(42);
    await randomTrading(ctx, 'BTC_USDT', 200, random);
    await until(
      'the first worker to fold some deals',
      async () => (await ctx.redis.zcard(ctx.keys.candlesApplied('spot', 'BTC_USDT'))) > 0,
    );

    // Kill it while the burst goes on: whatever it had read, queued or was folding is left behind.
    // long enough to outlast the 100 ms before the kill however fast the engine places orders
    const burst = randomTrading(ctx, 'BTC_USDT', 1500, random);
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    child = undefined;
    const stream = ctx.keys.events('spot', 'BTC_USDT');
    const conn = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true });
    const queue = openQueue(ctx.keys, conn, 'candles');
    // the dead worker left work behind: entries unacknowledged, jobs it held or nobody ran, or entries
    // of the burst it never read (on a slow box it may have caught up just before the kill)
    const leftBehind = async () => {
      const [pending] = (await ctx.redis.xpending(stream, DISPATCH_GROUP)) as [number];
      const { active, wait } = await queue.getJobCounts('active', 'wait');
      const groups = (await ctx.redis.xinfo('GROUPS', stream)) as unknown[][];
      const group = groups.map((g) => fieldsOf(g)).find((g) => g.name === DISPATCH_GROUP);
      const [last] = await ctx.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
      return pending + active + wait > 0 || (last !== undefined && last[0] !== group?.['last-delivered-id']);
    };
    await until('work the dead worker left behind', leftBehind);
    expect(await leftBehind()).toBe(true);
    await queue.close();
    await conn.quit();
    await burst;

    worker = await startWorkerRole(ctx, FAST);
    const n = await expectCandlesExactlyOnce('BTC_USDT', { price: 2, amount: 6 });
    expect(n).toBeGreaterThan(100);
  });

  it('entries a dead dispatcher read but never acknowledged are claimed, and a full replay changes nothing', async () => {
    const key = ctx.keys.events('spot', 'BTC_USDT');
    await ctx.redis.xgroup('CREATE', key, DISPATCH_GROUP, '0', 'MKSTREAM');
    await randomTrading(ctx, 'BTC_USDT', 300, rng(9));
    // A dispatcher that died right after its read: everything is pending on it, nothing handed over.
    await ctx.redis.xreadgroup(
      'GROUP',
      DISPATCH_GROUP,
      'dead-dispatcher',
      'COUNT',
      10_000,
      'STREAMS',
      key,
      '>',
    );
    const [pendingBefore] = (await ctx.redis.xpending(key, DISPATCH_GROUP)) as [number];
    expect(pendingBefore).toBeGreaterThan(0);

    worker = await startWorkerRole(ctx, FAST);
    const n = await expectCandlesExactlyOnce('BTC_USDT', { price: 2, amount: 6 });
    expect(n).toBeGreaterThan(50);
    await until(
      'the claimed entries acknowledged',
      async () => ((await ctx.redis.xpending(key, DISPATCH_GROUP)) as [number])[0] === 0,
    );

    // Replay the whole stream into the queues again, with the finished jobs (and so their job-id
    // guard) gone: the jobs run a second time and the fold's markers must absorb them.
    const conn = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true });
    const queue = openQueue(ctx.keys, conn, 'candles');
    expect((await queue.clean(0, 100_000, 'completed')).length).toBeGreaterThan(50);
    await ctx.redis.xgroup('SETID', key, DISPATCH_GROUP, '0');
    const [[lastId]] = await ctx.redis.xrevrange(key, '+', '-', 'COUNT', 1);
    await until('the replay read and acknowledged', async () => {
      const [flat] = (await ctx.redis.xinfo('GROUPS', key)) as unknown[][];
      const group = new Map<unknown, unknown>(flat.flatMap((v, i) => (i % 2 ? [] : [[v, flat[i + 1]]])));
      return group.get('last-delivered-id') === lastId && group.get('pending') === 0;
    });
    await until(
      'the replayed jobs run',
      async () => (await queue.getJobCounts('completed')).completed >= n / 10,
    );
    await until('the queue drained', async () => {
      const c = await queue.getJobCounts('active', 'wait');
      return c.active + c.wait === 0;
    });
    await queue.close();
    await conn.quit();
    expect(await expectCandlesExactlyOnce('BTC_USDT', { price: 2, amount: 6 })).toBe(n);
  });
});
