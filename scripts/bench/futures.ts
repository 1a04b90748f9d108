/**
 * npm run bench:futures — the futures engine (issue 3), three measurements, each with a baseline
 * measured in the same run (DESIGN 7):
 *   1. create-order straight through Lua, pipelined: RESTING non-crossing limit orders, then
 *      CROSSING ones that each fill one maker, against a no-op FCALL with the same KEYS/ARGV.
 *   2. create-order over HTTP (auth, rate limit, joi, service, Lua, reply) against a trivial
 *      Express route that parses the same JSON body; each server in a child process, autocannon.
 *   3. a liquidation sweep of LIQUIDATIONS positions: that many longs, then the index drops below
 *      their liquidation price and FuturesRiskService.sweepLiquidations closes each against a
 *      resting bid (one fill per position).
 * Medians over BENCH_RUNS runs; a table on stdout and JSON in bench-results/.
 *
 * Env: BENCH_RUNS (3), BENCH_RESTING (20000), BENCH_CROSSING (10000), BENCH_BATCH (500),
 * BENCH_IN_FLIGHT (2), BENCH_DURATION (5 s per HTTP server per run), BENCH_CONNECTIONS (16),
 * BENCH_LIQUIDATIONS (10000), BENCH_MAX_SECONDS (900), REDIS_URL (else a private redis-server).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import express from 'express';
import jwt from 'jsonwebtoken';
import type Redis from 'ioredis';
import { loadConfig, type AppConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext, type AppContext } from '../../src/transport/context';
import type { CreateFuturesInput } from '../../src/futures/futures-engine';
import { createApp } from '../../src/transport/http/app';
import { seedMarkets } from '../../src/markets/market-seeder';
import { startProgress } from '../lib/progress';
import { reportFailure, reportPort, withChildServer } from './lib/child-server';
import { envInt, exitAfter } from './lib/deadline';
import { runPipelined } from './lib/pipeline';
import { postLoad, type PostLoadSample } from './lib/post-load';
import { loadNoopFunction } from './lib/redis-info';
import { deleteByPrefix, startBenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { median, nowMs } from './lib/stats';

const RUNS = envInt('BENCH_RUNS', 3);
const RESTING = envInt('BENCH_RESTING', 20_000);
const CROSSING = envInt('BENCH_CROSSING', 10_000);
const BATCH = envInt('BENCH_BATCH', 500);
const IN_FLIGHT = envInt('BENCH_IN_FLIGHT', 2);
const DURATION = envInt('BENCH_DURATION', 5);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 16);
const LIQUIDATIONS = envInt('BENCH_LIQUIDATIONS', 10_000);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 900);
const PAIR = 'BTC_USDT';
const JWT_SECRET = 'bench-secret-0123456789abcdef';
const USERS = 10;
const MID = 500_000; // 50,000.0 USDT in ticks (digitsPrice 1)
const LOTS = 10; // 0.001 BTC: 50 USDT, above the pair minimums

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
  });
}

/** Opens a funded futures account for each user; returns the account ids. */
async function accounts(ctx: AppContext, users: string[], usdt: number): Promise<string[]> {
  const out: string[] = [];
  for (const u of users) {
    await ctx.wallets.deposit(u, 'USDT', usdt);
    const a = await ctx.futures.accounts.create(u, { name: 'bench', currencyCode: 'USDT', leverage: 10 });
    await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: usdt });
    out.push(String(a.id));
  }
  return out;
}

// ---- 1. Lua, pipelined ----

interface LuaSample {
  engineResting: number;
  engineCrossing: number;
  noopResting: number;
  noopCrossing: number;
  errors: number;
}

async function luaRun(ctx: AppContext): Promise<LuaSample> {
  const makers = Array.from({ length: USERS }, (_, i) => `m${i}`);
  const takers = Array.from({ length: USERS }, (_, i) => `t${i}`);
  const mAcc = await accounts(ctx, makers, 10_000_000);
  const tAcc = await accounts(ctx, takers, 10_000_000);
  const ts = Date.now();
  const input = (user: number, maker: boolean, side: 'buy' | 'sell', ticks: number): CreateFuturesInput => ({
    userId: maker ? makers[user] : takers[user], pairCode: PAIR, accountId: maker ? mAcc[user] : tAcc[user], side,
    isMarket: false, priceTicks: String(ticks), amountLots: String(LOTS), postOnly: false, stp: 'NONE', timestamp: ts,
  });
  const resting: CreateFuturesInput[] = [];
  for (let i = 0; i < RESTING; i++) {
    const k = Math.floor(i / 2) % 1000;
    resting.push(i % 2 === 0 ? input(i % USERS, true, 'sell', MID + 1 + k) : input(i % USERS, true, 'buy', MID - 1 - k));
  }
  const crossing: CreateFuturesInput[] = [];
  for (let i = 0; i < CROSSING; i++) {
    crossing.push(i % 2 === 0 ? input(i % USERS, false, 'buy', MID + 1010) : input(i % USERS, false, 'sell', MID - 1010));
  }
  const redis = ctx.redis as Redis;
  const ok = (r: unknown) => Array.isArray(r) && r[0] === 'OK';
  const engine = async (items: CreateFuturesInput[]) => {
    const run = await runPipelined(redis, {
      items, batchSize: BATCH, inFlight: IN_FLIGHT, isOk: ok,
      queue: (p, o) => ctx.futures.engine.queueCreate(p, [o]),
    });
    if (run.firstError) console.log(`  first engine error: ${run.firstError}`);
    return { perSec: (items.length / run.elapsedMs) * 1000, errors: run.errors };
  };
  const noopFn = await loadNoopFunction(redis);
  const noop = async (items: CreateFuturesInput[]) => {
    const run = await runPipelined(redis, {
      items, batchSize: BATCH, inFlight: IN_FLIGHT,
      queue: (p, o) => {
        const { keys, args } = ctx.futures.engine.createArgs([o]);
        p.fcall(noopFn, keys.length, ...keys, ...args);
      },
    });
    return (items.length / run.elapsedMs) * 1000;
  };
  const noopResting = await noop(resting);
  const noopCrossing = await noop(crossing);
  const r = await engine(resting);
  const c = await engine(crossing);
  return { engineResting: r.perSec, engineCrossing: c.perSec, noopResting, noopCrossing, errors: r.errors + c.errors };
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

async function httpRun(ctx: AppContext, redisUrl: string): Promise<{ baseline: HttpSample; app: HttpSample }> {
  const names = Array.from({ length: 20 }, (_, i) => `h${i}`);
  const accts = await accounts(ctx, names, 10_000_000);
  const users = names.map((n, i) => ({ token: jwt.sign({ sub: n }, JWT_SECRET, { algorithm: 'HS256' }), account: accts[i] }));
  const env = { ...process.env, BENCH_REDIS_URL: redisUrl, BENCH_PREFIX: ctx.config.keyPrefix };
  const baseline = await withChildServer(__filename, 'baseline', env, (port) => load(port, users));
  return { baseline, app: await withChildServer(__filename, 'app', env, (port) => load(port, users)) };
}

// ---- 3. liquidation sweep ----

async function liquidationRun(ctx: AppContext): Promise<{ ms: number; liquidated: number; perSec: number }> {
  const [whale, wall] = await accounts(ctx, ['whale', 'wall'], 50_000_000);
  const longUsers = Array.from({ length: 10 }, (_, i) => `l${i}`);
  const longAcc = await accounts(ctx, longUsers, 10_000_000);
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
    items: longs, batchSize: BATCH, inFlight: IN_FLIGHT, isOk: (r) => Array.isArray(r) && r[0] === 'OK',
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

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:futures');
  const server = await startBenchRedis();
  // three measurements per run, each a step
  const progress = startProgress('bench:futures', RUNS * 3, { unit: 'steps' });
  try {
    const lua: LuaSample[] = [];
    const http: { baseline: HttpSample; app: HttpSample }[] = [];
    const liq: { ms: number; liquidated: number; perSec: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      lua.push(await withContext(server.url, server.privateServer, luaRun));
      progress.increment(1, `run ${i + 1}: Lua done`);
      http.push(await withContext(server.url, server.privateServer, (ctx) => httpRun(ctx, server.url)));
      progress.increment(1, `run ${i + 1}: HTTP done`);
      liq.push(await withContext(server.url, server.privateServer, liquidationRun));
      progress.increment(1, `run ${i + 1}: liquidations done`);
      console.log(`run ${i + 1}/${RUNS} done`);
    }
    progress.stop();
    const m = (xs: number[]) => median(xs);
    const summary = {
      lua: {
        engineRestingPerSec: m(lua.map((x) => x.engineResting)),
        engineCrossingPerSec: m(lua.map((x) => x.engineCrossing)),
        noopRestingPerSec: m(lua.map((x) => x.noopResting)),
        noopCrossingPerSec: m(lua.map((x) => x.noopCrossing)),
        restingRatio: m(lua.map((x) => x.engineResting / x.noopResting)),
        crossingRatio: m(lua.map((x) => x.engineCrossing / x.noopCrossing)),
        errors: lua.reduce((s, x) => s + x.errors, 0),
      },
      http: {
        appReqPerSec: m(http.map((x) => x.app.reqPerSec)),
        baselineReqPerSec: m(http.map((x) => x.baseline.reqPerSec)),
        ratio: m(http.map((x) => x.app.reqPerSec / x.baseline.reqPerSec)),
        appP50Ms: m(http.map((x) => x.app.latencyP50Ms)),
        appP99Ms: m(http.map((x) => x.app.latencyP99Ms)),
        baselineP50Ms: m(http.map((x) => x.baseline.latencyP50Ms)),
        appNon2xx: http.reduce((s, x) => s + x.app.non2xx + x.app.errors, 0),
      },
      liquidation: {
        positions: LIQUIDATIONS,
        sweepMs: m(liq.map((x) => x.ms)),
        perSec: m(liq.map((x) => x.perSec)),
      },
    };
    printTable(`bench:futures — medians of ${RUNS} runs`, ['measure', 'engine', 'baseline', 'ratio'], [
      ['create-order via Lua, resting (orders/s)', fmtNum(summary.lua.engineRestingPerSec, 0), fmtNum(summary.lua.noopRestingPerSec, 0), fmtNum(summary.lua.restingRatio, 3)],
      ['create-order via Lua, crossing (orders/s)', fmtNum(summary.lua.engineCrossingPerSec, 0), fmtNum(summary.lua.noopCrossingPerSec, 0), fmtNum(summary.lua.crossingRatio, 3)],
      ['create-order via HTTP (req/s)', fmtNum(summary.http.appReqPerSec, 0), fmtNum(summary.http.baselineReqPerSec, 0), fmtNum(summary.http.ratio, 3)],
      ['HTTP latency p50 / p99 (ms)', `${summary.http.appP50Ms} / ${summary.http.appP99Ms}`, String(summary.http.baselineP50Ms), ''],
      [`liquidation sweep of ${LIQUIDATIONS} positions (ms)`, fmtNum(summary.liquidation.sweepMs, 0), '', `${fmtNum(summary.liquidation.perSec, 0)}/s`],
    ]);
    const file = writeResults('futures', {
      machine: machineInfo(), params: { RUNS, RESTING, CROSSING, BATCH, IN_FLIGHT, DURATION, CONNECTIONS, LIQUIDATIONS },
      summary, runs: { lua, http, liq },
    });
    console.log(`results: ${file}`);
  } finally {
    progress.stop();
    await server.stop();
  }
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) serve(process.argv[serveAt + 1]).catch(reportFailure);
else main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
