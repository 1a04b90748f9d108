/**
 * npm run bench:futures — the futures engine (issues 3, 10), three measurements, each with a baseline
 * measured in the same run (docs/performance.md):
 *   1. create-order straight through Lua, pipelined: RESTING non-crossing limit orders, then
 *      CROSSING ones that each fill one maker, against a no-op FCALL with the same KEYS/ARGV and
 *      the same flow through nodejs-order-book in memory; three times per run: one order per
 *      createFuturesOrders call, the orders per call the HTTP load of that run produced (group
 *      commit: the mean of the app's futures_create_batch_orders histogram on /metrics, printed
 *      with its medians over calls and over orders), and the
 *      engine's largest batch (64); and the floor script (lib/futures-floor.lua: only the commands an
 *      order cannot do without, what no version of the script can beat). Beside wall-clock orders/s, orders per second of Redis CPU
 *      (INFO cpu, main thread user + sys): what the engine costs, whatever else the box runs.
 *   2. create-order over HTTP (auth, rate limit, joi, service, Lua, reply) against a trivial
 *      Express route that parses the same JSON body; each server in a child process, autocannon.
 *   3. a liquidation sweep of LIQUIDATIONS positions: that many longs, then the index drops below
 *      their liquidation price and FuturesRiskService.sweepLiquidations closes each against a
 *      resting bid (one fill per position).
 *   4. a funding round over BENCH_FUNDING_POSITIONS positions (lib/futures-funding-round.ts).
 * Medians over BENCH_RUNS runs; a table on stdout and JSON in bench-results/.
 *
 * Env: BENCH_RUNS (5, as bench:matching's: the host's dips pull single runs down), BENCH_RESTING (20000), BENCH_CROSSING (10000), BENCH_BATCH (500),
 * BENCH_IN_FLIGHT (2), BENCH_DURATION (5 s per HTTP server per run), BENCH_CONNECTIONS (16),
 * BENCH_LIQUIDATIONS (10000), BENCH_FUNDING_POSITIONS (10000), BENCH_MAX_SECONDS (900), REDIS_URL (else a private redis-server).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import express from 'express';
import jwt from 'jsonwebtoken';
import type Redis from 'ioredis';
import { OrderBook, Side as ObSide } from 'nodejs-order-book';
import { loadConfig, type AppConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext, type AppContext } from '../../src/transport/context';
import { MAX_CREATE_BATCH, type CreateFuturesInput } from '../../src/futures/futures-engine';
import { createApp } from '../../src/transport/http/app';
import { seedMarkets } from '../../src/markets/market-seeder';
import { startProgress } from '../lib/progress';
import { reportFailure, reportPort, withChildServer } from './lib/child-server';
import { envInt, exitAfter, runBench } from './lib/deadline';
import { FuturesFloor } from './lib/futures-floor';
import { fundedAccounts, futuresFlow, LOTS, MID, PAIR } from './lib/futures-flow';
import { fundingRound, type FundingRoundSample } from './lib/futures-funding-round';
import { runPipelined } from './lib/pipeline';
import { postLoad, type PostLoadSample } from './lib/post-load';
import { loadNoopFunction, serverCpuSeconds } from './lib/redis-info';
import { deleteByPrefix, startBenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { median, nowMs } from './lib/stats';

const RUNS = envInt('BENCH_RUNS', 5);
const RESTING = envInt('BENCH_RESTING', 20_000);
const CROSSING = envInt('BENCH_CROSSING', 10_000);
const BATCH = envInt('BENCH_BATCH', 500);
const IN_FLIGHT = envInt('BENCH_IN_FLIGHT', 2);
const DURATION = envInt('BENCH_DURATION', 5);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 16);
const LIQUIDATIONS = envInt('BENCH_LIQUIDATIONS', 10_000);
const FUNDING_POSITIONS = envInt('BENCH_FUNDING_POSITIONS', 10_000);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 900);
const JWT_SECRET = 'bench-secret-0123456789abcdef';

function benchConfig(redisUrl: string, prefix: string): AppConfig {
  return loadConfig({
    REDIS_URL: redisUrl,
    JWT_SECRET,
    KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    MARKETS_FILE: resolve(__dirname, '../../config/markets.json'),
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '2000000',
    STREAM_MAXLEN: '1000000',
    // a pipeline of BATCH orders on a busy box can take longer than the API's 1 s per command
    REDIS_COMMAND_TIMEOUT_MS: '60000',
  });
}

// ---- 1. Lua, pipelined ----

interface LuaSample {
  /** Orders per createFuturesOrders call. */
  group: number;
  engineResting: number;
  engineCrossing: number;
  noopResting: number;
  noopCrossing: number;
  memResting: number;
  memCrossing: number;
  /** The floor script (lib/futures-floor.lua): only the commands the engine cannot do without. */
  floorResting: number;
  floorCrossing: number;
  /** Orders per second of Redis CPU (user + sys of its main thread): the engine's own cost on a shared box. */
  cpuResting: number;
  cpuCrossing: number;
  errors: number;
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The same flow through nodejs-order-book: what matching costs without Redis (orders/s). */
function inMemory(resting: CreateFuturesInput[], crossing: CreateFuturesInput[]): { resting: number; crossing: number } {
  const ob = new OrderBook();
  const place = (o: CreateFuturesInput, id: string) =>
    ob.limit({ id, side: o.side === 'buy' ? ObSide.BUY : ObSide.SELL, size: LOTS, price: Number(o.priceTicks) });
  let t0 = nowMs();
  resting.forEach((o, i) => place(o, `r${i}`));
  const restingMs = nowMs() - t0;
  t0 = nowMs();
  let fills = 0;
  crossing.forEach((o, i) => {
    fills += place(o, `c${i}`).done.length;
  });
  const crossingMs = nowMs() - t0;
  if (fills !== 2 * crossing.length) throw new Error(`in-memory book: ${fills} done entries, expected ${2 * crossing.length}`);
  return { resting: (resting.length / restingMs) * 1000, crossing: (crossing.length / crossingMs) * 1000 };
}

/** RESTING limit orders that build a book, then CROSSING ones that each fill one maker, `group` per script call. */
async function luaRun(ctx: AppContext, group: number): Promise<LuaSample> {
  const { resting, crossing, accounts } = await futuresFlow(ctx, RESTING, CROSSING);
  const redis = ctx.redis as Redis;
  // a call answers one reply per order: all of them placed
  const ok = (r: unknown) => Array.isArray(r) && r.every((x) => Array.isArray(x) && x[0] === 'OK');
  // BATCH orders per pipeline, whatever the orders per call
  const callsPerPipeline = Math.max(1, Math.round(BATCH / group));
  const engine = async (items: CreateFuturesInput[]) => {
    const cpu0 = await serverCpuSeconds(redis);
    const run = await runPipelined(redis, {
      items: chunk(items, group), batchSize: callsPerPipeline, inFlight: IN_FLIGHT, isOk: ok,
      queue: (p, orders) => ctx.futures.engine.queueCreate(p, orders),
    });
    const cpu = (await serverCpuSeconds(redis)) - cpu0;
    if (run.firstError) console.log(`  first engine error: ${run.firstError}`);
    return { perSec: (items.length / run.elapsedMs) * 1000, perCpuSec: items.length / cpu, errors: run.errors };
  };
  const noopFn = await loadNoopFunction(redis);
  const noop = async (items: CreateFuturesInput[]) => {
    const run = await runPipelined(redis, {
      items: chunk(items, group), batchSize: callsPerPipeline, inFlight: IN_FLIGHT,
      queue: (p, orders) => {
        const { keys, args } = ctx.futures.engine.createArgs(orders);
        p.fcall(noopFn, keys.length, ...keys, ...args);
      },
    });
    return (items.length / run.elapsedMs) * 1000;
  };
  const noopResting = await noop(resting);
  const noopCrossing = await noop(crossing);
  const floor = new FuturesFloor(redis, `${ctx.config.keyPrefix}floor:`);
  await floor.prepare(accounts);
  const viaFloor = async (kind: 'resting' | 'crossing', items: CreateFuturesInput[]) => {
    const run = await runPipelined(redis, {
      items: chunk(items, group), batchSize: callsPerPipeline, inFlight: IN_FLIGHT, isOk: (r) => typeof r === 'number',
      queue: (p, orders) => floor.queue(p, kind, orders),
    });
    if (run.errors) throw new Error(`floor script: ${run.firstError}`);
    return (items.length / run.elapsedMs) * 1000;
  };
  const floorResting = await viaFloor('resting', resting);
  const floorCrossing = await viaFloor('crossing', crossing);
  const r = await engine(resting);
  const c = await engine(crossing);
  const mem = inMemory(resting, crossing);
  return {
    group, engineResting: r.perSec, engineCrossing: c.perSec, noopResting, noopCrossing,
    memResting: mem.resting, memCrossing: mem.crossing, cpuResting: r.perCpuSec, cpuCrossing: c.perCpuSec,
    floorResting, floorCrossing,
    errors: r.errors + c.errors,
  };
}

// ---- 2. HTTP ----

async function serve(kind: string): Promise<void> {
  if (kind === 'baseline') {
    const app = express();
    app.disable('x-powered-by');
    app.use(express.json({ limit: '64kb' }));
    app.post('/api/futures/trade/create-order', (req, res) => {
      res.json({ id: 1, clientOrderId: req.body?.clientOrderId ?? null });
    });
    const server = app.listen(0, '127.0.0.1', () => reportPort((server.address() as AddressInfo).port));
    return;
  }
  const ctx = await createContext(
    benchConfig(process.env.BENCH_REDIS_URL as string, process.env.BENCH_PREFIX as string),
    createLogger('silent'),
  );
  const server = createApp(ctx).listen(0, '127.0.0.1', () => reportPort((server.address() as AddressInfo).port));
}

type HttpSample = PostLoadSample;

async function load(port: number, users: { token: string; account: string }[]): Promise<HttpSample> {
  let next = 0;
  return postLoad({
    port,
    path: '/api/futures/trade/create-order',
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    next: () => {
      const u = users[next++ % users.length];
      // 50,000.0 ± 100.0: longs and shorts overlap, so about half cross on arrival
      const price = (MID + Math.floor(Math.random() * 2001) - 1000) / 10;
      const body = JSON.stringify({
        isMarket: false, isLong: Math.random() < 0.5, price, amount: 0.001, currencyPairCode: PAIR,
        futuresAccountId: Number(u.account), stopLoss: 0, takeProfit: 0, clientOrderId: null,
      });
      return { token: u.token, body };
    },
  });
}

interface HttpRun {
  baseline: HttpSample;
  app: HttpSample;
  /** Mean orders per createFuturesOrders call under this load, from the app's /metrics. */
  ordersPerCall: number;
  /** Median orders per call over the calls, and over the orders (the batch the median order went in). */
  medianPerCall: number;
  medianPerOrder: number;
}

/**
 * Medians of the batch-size histogram (a bucket per size up to 8, so exact there): over the calls,
 * and weighted by orders. The bench runs the mean instead, orders / calls: a call's fixed cost is
 * shared by its orders, so that is the one batch size with the same cost per order as the mix.
 */
function batchMedians(metrics: string, name: string): { perCall: number; perOrder: number } {
  const cumulative = [...metrics.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))]
    .map((m) => [Number(m[1]), Number(m[2])] as const)
    .filter(([le]) => Number.isFinite(le));
  const counts = cumulative.map(([le, n], i) => [le, n - (i > 0 ? cumulative[i - 1][1] : 0)] as const);
  const median = (weight: (le: number, n: number) => number) => {
    const total = counts.reduce((t, [le, n]) => t + weight(le, n), 0);
    let run = 0;
    for (const [le, n] of counts) {
      run += weight(le, n);
      if (run >= total / 2) return le;
    }
    return NaN;
  };
  return { perCall: median((_, n) => n), perOrder: median((le, n) => le * n) };
}

async function httpRun(ctx: AppContext, redisUrl: string): Promise<HttpRun> {
  const names = Array.from({ length: 20 }, (_, i) => `h${i}`);
  const accts = await fundedAccounts(ctx, names, 10_000_000);
  const users = names.map((n, i) => ({ token: jwt.sign({ sub: n }, JWT_SECRET, { algorithm: 'HS256', expiresIn: '1h' }), account: accts[i] }));
  const env = { ...process.env, BENCH_REDIS_URL: redisUrl, BENCH_PREFIX: ctx.config.keyPrefix };
  const baseline = await withChildServer(__filename, 'baseline', env, (port) => load(port, users));
  let ordersPerCall = NaN;
  let medians = { perCall: NaN, perOrder: NaN };
  const app = await withChildServer(__filename, 'app', env, async (port) => {
    const sample = await load(port, users);
    // how much the engine's group commit batched under this load (src/futures/futures-engine.ts)
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    ordersPerCall = metric('futures_create_batch_orders_sum') / metric('futures_create_batch_orders_count');
    medians = batchMedians(metrics, 'futures_create_batch_orders');
    return sample;
  });
  return { baseline, app, ordersPerCall, medianPerCall: medians.perCall, medianPerOrder: medians.perOrder };
}

// ---- 3. liquidation sweep ----

async function liquidationRun(ctx: AppContext): Promise<{ ms: number; liquidated: number; perSec: number }> {
  const [whale, wall] = await fundedAccounts(ctx, ['whale', 'wall'], 50_000_000);
  const longUsers = Array.from({ length: 10 }, (_, i) => `l${i}`);
  const longAcc = await fundedAccounts(ctx, longUsers, 10_000_000);
  const ts = Date.now();
  const lots = 1000; // 0.1 BTC at 100.0: 10 USDT a position
  await ctx.futures.engine.create({
    userId: 'whale', pairCode: PAIR, accountId: whale, side: 'sell', isMarket: false, priceTicks: '1000',
    amountLots: String(lots * LIQUIDATIONS), postOnly: false, stp: 'NONE', timestamp: ts,
  });
  const longs: CreateFuturesInput[] = Array.from({ length: LIQUIDATIONS }, (_, i) => ({
    userId: longUsers[i % 10], pairCode: PAIR, accountId: longAcc[i % 10], side: 'buy', isMarket: true,
    amountLots: String(lots), postOnly: false, stp: 'NONE', timestamp: ts,
  }));
  const run = await runPipelined(ctx.redis as Redis, {
    items: longs, batchSize: BATCH, inFlight: IN_FLIGHT,
    isOk: (r) => Array.isArray(r) && r.every((x) => Array.isArray(x) && x[0] === 'OK'),
    queue: (p, o) => ctx.futures.engine.queueCreate(p, [o]),
  });
  if (run.errors) throw new Error(`opening the positions failed: ${run.firstError}`);
  await ctx.futures.engine.create({
    userId: 'wall', pairCode: PAIR, accountId: wall, side: 'buy', isMarket: false, priceTicks: '890',
    amountLots: String(lots * LIQUIDATIONS), postOnly: false, stp: 'NONE', timestamp: ts,
  });
  await ctx.futures.market.setIndexPrice(PAIR, 85);
  const t0 = nowMs();
  const ids = await ctx.futures.risk.sweepLiquidations(PAIR, Date.now(), 1000);
  const ms = nowMs() - t0;
  if (ids.length !== LIQUIDATIONS) throw new Error(`expected ${LIQUIDATIONS} liquidations, got ${ids.length}`);
  return { ms, liquidated: ids.length, perSec: (ids.length / ms) * 1000 };
}

// ---- driver ----

async function withContext<T>(redisUrl: string, privateServer: boolean, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = benchConfig(redisUrl, `benchfut${randomBytes(3).toString('hex')}`);
  const ctx = await createContext(config, createLogger('silent'));
  try {
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    return await fn(ctx);
  } finally {
    if (privateServer) await (ctx.redis as Redis).flushall();
    else await deleteByPrefix(ctx.redis as Redis, config.keyPrefix);
    await ctx.close();
  }
}

/** The Lua modes of a run: one order per call, the batch HTTP load produced in that run, the engine's largest. */
const MODES = ['one', 'http', 'max'] as const;
type Mode = (typeof MODES)[number];

function groupOf(mode: Mode, httpOrdersPerCall: number): number {
  if (mode === 'one') return 1;
  if (mode === 'max') return MAX_CREATE_BATCH;
  return Math.min(MAX_CREATE_BATCH, Math.max(1, Math.round(httpOrdersPerCall)));
}

function luaSummary(xs: LuaSample[]) {
  const m = (f: (x: LuaSample) => number) => median(xs.map(f));
  return {
    group: m((x) => x.group),
    engineRestingPerSec: m((x) => x.engineResting),
    engineCrossingPerSec: m((x) => x.engineCrossing),
    noopRestingPerSec: m((x) => x.noopResting),
    noopCrossingPerSec: m((x) => x.noopCrossing),
    inMemoryRestingPerSec: m((x) => x.memResting),
    inMemoryCrossingPerSec: m((x) => x.memCrossing),
    floorRestingPerSec: m((x) => x.floorResting),
    floorCrossingPerSec: m((x) => x.floorCrossing),
    restingVsFloor: m((x) => x.engineResting / x.floorResting),
    crossingVsFloor: m((x) => x.engineCrossing / x.floorCrossing),
    engineRestingPerCpuSec: m((x) => x.cpuResting),
    engineCrossingPerCpuSec: m((x) => x.cpuCrossing),
    restingVsNoop: m((x) => x.engineResting / x.noopResting),
    crossingVsNoop: m((x) => x.engineCrossing / x.noopCrossing),
    restingVsInMemory: m((x) => x.engineResting / x.memResting),
    crossingVsInMemory: m((x) => x.engineCrossing / x.memCrossing),
    errors: xs.reduce((s, x) => s + x.errors, 0),
  };
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:futures');
  const server = await startBenchRedis();
  // per run: HTTP, the Lua modes, the liquidation sweep, each a step
  const progress = startProgress('bench:futures', RUNS * (MODES.length + 3), { unit: 'steps' });
  try {
    const lua: Record<Mode, LuaSample[]> = { one: [], http: [], max: [] };
    const http: HttpRun[] = [];
    const liq: { ms: number; liquidated: number; perSec: number }[] = [];
    const funding: FundingRoundSample[] = [];
    for (let i = 0; i < RUNS; i++) {
      // HTTP first: the batch size its load produces is one of the Lua modes
      const h = await withContext(server.url, server.privateServer, (ctx) => httpRun(ctx, server.url));
      http.push(h);
      progress.increment(1, `run ${i + 1}: HTTP done, ${fmtNum(h.ordersPerCall, 2)} orders per call`);
      console.log(
        `run ${i + 1}/${RUNS}, HTTP: ${fmtNum(h.app.reqPerSec, 0)} req/s (trivial route ${fmtNum(h.baseline.reqPerSec, 0)}), ` +
          `p50/p99 ${h.app.latencyP50Ms}/${h.app.latencyP99Ms} ms, orders per call: mean ${fmtNum(h.ordersPerCall, 2)}, ` +
          `median over calls ${h.medianPerCall}, over orders ${h.medianPerOrder}`,
      );
      for (const mode of MODES) {
        const group = groupOf(mode, h.ordersPerCall);
        const r = await withContext(server.url, server.privateServer, (ctx) => luaRun(ctx, group));
        lua[mode].push(r);
        progress.increment(1, `run ${i + 1}: Lua ${group}/call done`);
        console.log(
          `run ${i + 1}/${RUNS}, ${group} per call: resting ${fmtNum(r.engineResting, 0)}/s (no-op ${fmtNum(r.noopResting, 0)}/s, floor ${fmtNum(r.floorResting, 0)}/s, ` +
            `${fmtNum(r.cpuResting, 0)} per Redis CPU-s), crossing ${fmtNum(r.engineCrossing, 0)}/s (no-op ${fmtNum(r.noopCrossing, 0)}/s, floor ${fmtNum(r.floorCrossing, 0)}/s, ` +
            `${fmtNum(r.cpuCrossing, 0)} per Redis CPU-s)`,
        );
      }
      // a failed sweep is reported and leaves the order figures standing
      liq.push(
        await withContext(server.url, server.privateServer, liquidationRun).catch((err: unknown) => {
          console.log(`run ${i + 1}/${RUNS}, liquidation sweep failed: ${String(err)}`);
          return { ms: NaN, liquidated: 0, perSec: NaN };
        }),
      );
      progress.increment(1, `run ${i + 1}: liquidations done`);
      const f = await withContext(server.url, server.privateServer, (ctx) => fundingRound(ctx, FUNDING_POSITIONS, BATCH, IN_FLIGHT));
      funding.push(f);
      progress.increment(1, `run ${i + 1}: funding round done`);
      console.log(`run ${i + 1}/${RUNS}, funding round over ${f.positions} positions: ${fmtNum(f.ms, 0)} ms`);
      console.log(`run ${i + 1}/${RUNS} done`);
    }
    progress.stop();
    const m = (xs: number[]) => median(xs);
    const summary = {
      lua: Object.fromEntries(MODES.map((mode) => [mode, luaSummary(lua[mode])])) as Record<Mode, ReturnType<typeof luaSummary>>,
      http: {
        appReqPerSec: m(http.map((x) => x.app.reqPerSec)),
        baselineReqPerSec: m(http.map((x) => x.baseline.reqPerSec)),
        ratio: m(http.map((x) => x.app.reqPerSec / x.baseline.reqPerSec)),
        appP50Ms: m(http.map((x) => x.app.latencyP50Ms)),
        appP99Ms: m(http.map((x) => x.app.latencyP99Ms)),
        baselineP50Ms: m(http.map((x) => x.baseline.latencyP50Ms)),
        ordersPerCall: m(http.map((x) => x.ordersPerCall)),
        medianPerCall: m(http.map((x) => x.medianPerCall)),
        medianPerOrder: m(http.map((x) => x.medianPerOrder)),
        appNon2xx: http.reduce((s, x) => s + x.app.non2xx + x.app.errors, 0),
      },
      liquidation: {
        positions: LIQUIDATIONS,
        sweepMs: m(liq.map((x) => x.ms)),
        perSec: m(liq.map((x) => x.perSec)),
      },
      funding: { positions: FUNDING_POSITIONS, roundMs: m(funding.map((x) => x.ms)), perSec: m(funding.map((x) => x.perSec)) },
    };
    const luaRows = MODES.flatMap((mode) => {
      const l = summary.lua[mode];
      const g = `${fmtNum(l.group, 0)}/call${mode === 'http' ? ' (HTTP load)' : ''}`;
      return [
        [`create-order via Lua, resting, ${g} (orders/s)`, fmtNum(l.engineRestingPerSec, 0), fmtNum(l.noopRestingPerSec, 0), fmtNum(l.restingVsNoop, 3), fmtNum(l.inMemoryRestingPerSec, 0)],
        [`create-order via Lua, crossing, ${g} (orders/s)`, fmtNum(l.engineCrossingPerSec, 0), fmtNum(l.noopCrossingPerSec, 0), fmtNum(l.crossingVsNoop, 3), fmtNum(l.inMemoryCrossingPerSec, 0)],
        [`  the same per Redis CPU-second, resting / crossing`, `${fmtNum(l.engineRestingPerCpuSec, 0)} / ${fmtNum(l.engineCrossingPerCpuSec, 0)}`, '', '', ''],
        [`  floor script (the commands alone), resting / crossing; engine / floor`, `${fmtNum(l.floorRestingPerSec, 0)} / ${fmtNum(l.floorCrossingPerSec, 0)}`, '', `${fmtNum(l.restingVsFloor, 3)} / ${fmtNum(l.crossingVsFloor, 3)}`, ''],
      ];
    });
    printTable(`bench:futures — medians of ${RUNS} runs`, ['measure', 'engine', 'baseline', 'ratio', 'in-memory'], [
      ...luaRows,
      ['create-order via HTTP (req/s)', fmtNum(summary.http.appReqPerSec, 0), fmtNum(summary.http.baselineReqPerSec, 0), fmtNum(summary.http.ratio, 3), ''],
      ['HTTP latency p50 / p99 (ms)', `${summary.http.appP50Ms} / ${summary.http.appP99Ms}`, String(summary.http.baselineP50Ms), '', ''],
      ['orders per createFuturesOrders call under HTTP load: mean, median over calls, over orders', `${fmtNum(summary.http.ordersPerCall, 2)}, ${summary.http.medianPerCall}, ${summary.http.medianPerOrder}`, '', '', ''],
      [`liquidation sweep of ${LIQUIDATIONS} positions (ms)`, fmtNum(summary.liquidation.sweepMs, 0), '', `${fmtNum(summary.liquidation.perSec, 0)}/s`, ''],
      [`funding round over ${FUNDING_POSITIONS} positions (ms)`, fmtNum(summary.funding.roundMs, 0), '', `${fmtNum(summary.funding.perSec, 0)}/s`, ''],
    ]);
    const h = summary.lua.http;
    console.log(
      `\nat the HTTP batch size (${fmtNum(h.group, 0)}/call): resting ${fmtNum(h.engineRestingPerSec, 0)}/s ` +
        `(target 30,000: ${h.engineRestingPerSec >= 30_000 ? 'met' : 'missed'}), crossing ${fmtNum(h.engineCrossingPerSec, 0)}/s ` +
        `(target 15,000: ${h.engineCrossingPerSec >= 15_000 ? 'met' : 'missed'}); per Redis CPU-second ` +
        `${fmtNum(h.engineRestingPerCpuSec, 0)} / ${fmtNum(h.engineCrossingPerCpuSec, 0)}; the floor script in the same run ` +
        `${fmtNum(h.floorRestingPerSec, 0)} / ${fmtNum(h.floorCrossingPerSec, 0)}/s`,
    );
    const file = writeResults('futures', {
      machine: machineInfo(), params: { RUNS, RESTING, CROSSING, BATCH, IN_FLIGHT, DURATION, CONNECTIONS, LIQUIDATIONS, FUNDING_POSITIONS },
      summary, runs: { lua, http, liq, funding },
    });
    console.log(`results: ${file}`);
  } finally {
    progress.stop();
    await server.stop();
  }
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) serve(process.argv[serveAt + 1]).catch(reportFailure);
else runBench(main);
