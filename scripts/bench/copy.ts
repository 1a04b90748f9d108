/**
 * npm run bench:copy — one master fill mirrored to BENCH_FOLLOWERS (1,000) followers (issue 9),
 * through the worker's real path: the stream dispatcher hands the master's entry to BullMQ, a
 * copy-mirror job cuts it into copy-fanout chunks (COPY_FANOUT_CHUNK), each chunk places its follower
 * orders in one engine call. Latency per follower: from the master's fill (its order's engine
 * timestamp) to the moment the engine call that placed the follower's order answered (seen in this
 * process, which runs the worker). Baseline in the same run: as many plain create-orders (market,
 * the same size, 32 at a time) from as many ordinary accounts, each timed from the batch's start
 * to its answer. A warm-up fill, then BENCH_RUNS (3) master fills over the same followers; the table shows each
 * run and the medians of the counted ones.
 *
 * Env: BENCH_FOLLOWERS (1000), BENCH_RUNS (3), BENCH_MAX_SECONDS (600), COPY_FANOUT_CHUNK,
 * COPY_FANOUT_CONCURRENCY, REDIS_URL (else a private redis-server).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type Redis from 'ioredis';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext, type AppContext } from '../../src/transport/context';
import { seedMarkets } from '../../src/markets/market-seeder';
import { startCopyWorkers } from '../../src/copy';
import { startWorkerRole } from '../../src/transport/workers/worker-role';
import { envInt, exitAfter } from './lib/deadline';
import { clearBenchData, startBenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, writeResults, type Cell } from './lib/report';
import { median, summarize, type Summary } from './lib/stats';

const FOLLOWERS = envInt('BENCH_FOLLOWERS', 1_000);
const RUNS = envInt('BENCH_RUNS', 3);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 600);
const PAIR = 'BTC_USDT';
const MASTER_AMOUNT = 100; // BTC; a follower with 1,000 of a 1,000,000 master gets 0.1 (10 USDT at 100)
const CONCURRENCY = 32;

async function order(ctx: AppContext, user: string, acct: number, isLong: boolean, amount: number, price?: number) {
  return ctx.futures.orders.create(user, {
    isMarket: price === undefined, isLong, amount, price: price ?? 0, currencyPairCode: PAIR, futuresAccountId: acct,
  });
}

async function account(ctx: AppContext, user: string, usdt: number): Promise<number> {
  await ctx.wallets.deposit(user, 'USDT', usdt);
  const a = await ctx.futures.accounts.create(user, { name: 'b', currencyCode: 'USDT', leverage: 10 });
  await ctx.futures.accounts.transfer(user, { fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: usdt });
  return a.id;
}

async function inChunks<T>(items: T[], fn: (x: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += CONCURRENCY) await Promise.all(items.slice(i, i + CONCURRENCY).map(fn));
}

/**
 * When each follower's first order for a master order was answered by the engine call that placed
 * it, by `copy:<masterOrderId>:<subscriptionId>` (the clientOrderId without its fill id; the worker
 * runs in this process).
 */
function watchPlacements(ctx: AppContext): Map<string, number> {
  const seen = new Map<string, number>();
  const orders = ctx.futures.orders;
  const createMany = orders.createMany.bind(orders);
  orders.createMany = async (items, asCopy) => {
    const r = await createMany(items, asCopy);
    const at = Date.now();
    for (const { req } of items) {
      const key = req.clientOrderId?.split(':').slice(0, 3).join(':');
      if (key && !seen.has(key)) seen.set(key, at);
    }
    return r;
  };
  return seen;
}

async function setup(ctx: AppContext) {
  const mm = await account(ctx, 'mm', 10_000_000);
  await order(ctx, 'mm', mm, false, 5_000, 100);
  await order(ctx, 'mm', mm, true, 5_000, 99);
  await ctx.wallets.deposit('max', 'USDT', 1_000_000);
  const master = await ctx.copy.masters.create('max', {
    name: 'Max', strategyName: 'bench', leverage: 10, currencyCode: 'USDT', slaveIncomePercentage: 20, commissionRate: 0, amount: 1_000_000,
  });
  const followers = Array.from({ length: FOLLOWERS }, (_, i) => `f${i}`);
  const subs: string[] = [];
  const t = Date.now();
  await inChunks(followers, async (u) => {
    await ctx.wallets.deposit(u, 'USDT', 2_000);
    const s = await ctx.copy.slaves.create(u, { name: u, leverage: 10, currencyCode: 'USDT' });
    await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: s.id, currencyCode: 'USDT', amount: 2_000 });
    subs.push(String((await ctx.copy.slaves.start(u, { copyMasterFuturesAccountId: master.id, copySlaveFuturesAccountId: s.id, margin: 1_000 })).id));
  });
  const plain = await Promise.all(followers.map(async (u) => [`p-${u}`, await account(ctx, `p-${u}`, 2_000)] as const));
  console.log(`${FOLLOWERS} followers subscribed and ${FOLLOWERS} plain accounts funded in ${fmtNum((Date.now() - t) / 1000, 1)} s`);
  return { master: master.id, subs, plain };
}

type Latency = Pick<Summary, 'p50' | 'p99' | 'max'>;

interface RunResult {
  latency: Latency;
  fanoutMs: number;
  baseline: Latency;
  baselineMs: number;
}

async function run(ctx: AppContext, seen: Map<string, number>, s: Awaited<ReturnType<typeof setup>>): Promise<RunResult> {
  const mOrder = await order(ctx, 'max', s.master, true, MASTER_AMOUNT);
  const fillTs = Number((await ctx.futures.accountReader.order(String(mOrder.id))).uts);
  const clids = s.subs.map((sub) => `copy:${mOrder.id}:${sub}`);
  const deadline = Date.now() + 120_000;
  while (clids.some((c) => !seen.has(c))) {
    if (Date.now() > deadline) throw new Error(`only ${clids.filter((c) => seen.has(c)).length} of ${FOLLOWERS} followers mirrored`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const latencies = clids.map((c) => seen.get(c)! - fillTs);
  // every follower holds an order for the fill (not a skip)
  const p = ctx.redis.pipeline();
  s.subs.forEach((_, i) => p.hkeys(ctx.keys.futuresClientOrderIds(`f${i}`)));
  const held = ((await p.exec()) ?? []).map(([, k], i) => (k as string[]).some((c) => c.startsWith(`${clids[i]}:`)));
  if (held.includes(false)) throw new Error(`${held.filter((x) => !x).length} followers have no mirrored order`);

  const b0 = Date.now();
  const baseline: number[] = [];
  await inChunks(s.plain, async ([u, acct]) => {
    await order(ctx, u, acct, true, 0.1);
    baseline.push(Date.now() - b0);
  });
  return { latency: summarize(latencies), fanoutMs: Math.max(...latencies), baseline: summarize(baseline), baselineMs: Date.now() - b0 };
}

const rows = (label: string, r: RunResult): Cell[][] => [
  [`${label} master fill → follower order`, r.latency.p50, r.latency.p99, r.latency.max, r.fanoutMs, fmtNum(FOLLOWERS / (r.fanoutMs / 1000), 0)],
  [`${label} baseline: ${FOLLOWERS} plain create-orders`, r.baseline.p50, r.baseline.p99, r.baseline.max, r.baselineMs, fmtNum(FOLLOWERS / (r.baselineMs / 1000), 0)],
];

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:copy');
  const server = await startBenchRedis();
  const config = loadConfig({
    ...process.env,
    REDIS_URL: server.url, JWT_SECRET: 'bench-secret-0123456789abcdef', KEY_PREFIX: `benchcopy${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'silent', MARKETS_FILE: resolve(__dirname, '../../config/markets.json'), REDIS_COMMAND_TIMEOUT_MS: '60000',
  });
  const ctx = await createContext(config, createLogger('silent'));
  const workers: { close(): Promise<void> }[] = [];
  try {
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    const s = await setup(ctx);
    const seen = watchPlacements(ctx);
    workers.push(await startWorkerRole(ctx), await startCopyWorkers(ctx));
    // a first fill warms the worker's path up (JIT, the scripts' first calls); shown, not counted
    const warmup = await run(ctx, seen, s);
    const results: RunResult[] = [];
    for (let i = 0; i < RUNS; i++) results.push(await run(ctx, seen, s));
    const med = (f: (r: RunResult) => number) => median(results.map(f));
    const medians: RunResult = {
      latency: { p50: med((r) => r.latency.p50), p99: med((r) => r.latency.p99), max: med((r) => r.latency.max) },
      fanoutMs: med((r) => r.fanoutMs),
      baseline: { p50: med((r) => r.baseline.p50), p99: med((r) => r.baseline.p99), max: med((r) => r.baseline.max) },
      baselineMs: med((r) => r.baselineMs),
    };
    printTable(
      `bench:copy — one master fill, ${FOLLOWERS} followers, through BullMQ (chunks of ${config.copyFanoutChunk}, ${config.copyFanoutConcurrency} at once) (ms)`,
      ['measure', 'p50', 'p99', 'max', 'total', 'per s'],
      [...rows('warm-up (not counted):', warmup), ...results.flatMap((r, i) => rows(`run ${i + 1}:`, r)), ...rows(`median of ${RUNS}:`, medians)],
    );
    console.log(`p99 fan-out / baseline total: ${fmtNum(medians.latency.p99 / medians.baselineMs, 2)}`);
    console.log(`results: ${writeResults('copy', { machine: machineInfo(), followers: FOLLOWERS, chunk: config.copyFanoutChunk, concurrency: config.copyFanoutConcurrency, warmup, runs: results, medians })}`);
  } finally {
    for (const w of workers.reverse()) await w.close();
    await clearBenchData(ctx.redis as Redis, server.privateServer, config.keyPrefix);
    await ctx.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
