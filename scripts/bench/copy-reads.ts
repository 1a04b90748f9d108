/**
 * npm run bench:copy-reads — the public copy-trading reads (issue 11): BENCH_MASTERS (1,000) masters
 * of BENCH_POSITIONS (1,000) closed positions each, then over HTTP (the app in a child process of its
 * own, so the client's fetch, gunzip and parse do not share its event loop; requests from this
 * process: one at a time, then BENCH_CONCURRENCY at a time) pages of
 * GET /api/copy-master/public-masters (random page and sort preset; and with a roi filter) and
 * GET /api/copy-master/{id}/analytics of random masters: p50/p99/max of each beside the same run's
 * baseline, GET /health.
 *
 * Seeding: the masters are made through the service (wallet, futures account, record, listing on
 * the board); their positions are written in bulk by scripts/bench/lib/seed-closed-positions.lua,
 * which passes each through the engine's own aggregate code (lua/includes/futures/accountStats), so
 * the aggregates and rankings are those real trading would leave. Positions close one every 8.76
 * hours: 1,000 span a year, so each master's daily series has ~365 days.
 *
 * Env: BENCH_MASTERS (1000), BENCH_POSITIONS (1000), BENCH_REQUESTS (1000 per route, half that concurrent),
 * BENCH_CONCURRENCY (8), BENCH_MAX_SECONDS (900), REDIS_URL (else a private redis-server).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type Redis from 'ioredis';
import { futuresParams } from '../../src/domain/futures';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { LUA_DIR, resolveIncludes } from '../../src/platform/redis/lua-loader';
import { createContext, type AppContext } from '../../src/transport/context';
import { createApp } from '../../src/transport/http/app';
import { seedMarkets } from '../../src/markets/market-seeder';
import { SORT_PRESETS } from '../../src/copy/copy-master.service';
import { envInt, exitAfter } from './lib/deadline';
import { reportFailure, reportPort, withChildServer } from './lib/child-server';
import { clearBenchData, startBenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { summarize, type Summary } from './lib/stats';
import { readFileSync } from 'node:fs';

const MASTERS = envInt('BENCH_MASTERS', 1_000);
const POSITIONS = envInt('BENCH_POSITIONS', 1_000);
const REQUESTS = envInt('BENCH_REQUESTS', 1_000);
const CONCURRENCY = envInt('BENCH_CONCURRENCY', 8);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 900);
const PAIR = 'BTC_USDT';
const YEAR = 365 * 86_400_000;

/** Small deterministic PRNG (mulberry32): the same seed seeds the same history. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function inChunks<T>(items: T[], size: number, fn: (x: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function seed(ctx: AppContext): Promise<number[]> {
  const pair = await ctx.markets.store.getPair('futures', PAIR);
  if (!pair) throw new Error(`no futures pair ${PAIR}`);
  const ns = futuresParams(pair).ns;
  const lua = resolveIncludes(LUA_DIR, readFileSync(resolve(__dirname, 'lib/seed-closed-positions.lua'), 'utf8'), 'seed-closed-positions.lua');
  const sha = (await ctx.redis.script('LOAD', lua)) as string;
  const t0 = Date.now();
  const ids: number[] = [];
  await inChunks(Array.from({ length: MASTERS }, (_, i) => i), 16, async (i) => {
    const user = `bm${i}`;
    await ctx.wallets.deposit(user, 'USDT', 100_000);
    const m = await ctx.copy.masters.create(user, {
      name: `Master ${i}`, strategyName: `S${i}`, strategyDescription: '#bench', leverage: 10, currencyCode: 'USDT',
      slaveIncomePercentage: 20, commissionRate: 0, amount: 100_000,
    });
    ids.push(m.id);
  });
  const created = Date.now();
  const start = Date.now() - YEAR;
  await inChunks(ids, 4, async (id) => {
    const random = rng(id);
    const skill = random() - 0.45; // some masters win, some lose
    const args: (string | number)[] = [ctx.keys.engine, id, 'bench', PAIR, 1_000_000_000 + id * POSITIONS, start, Math.floor(YEAR / POSITIONS), ns];
    for (let p = 0; p < POSITIONS; p++) {
      const lots = 10 + Math.floor(random() * 200); // 0.001-0.021 BTC at 4 amount digits
      const ticks = 900 + Math.floor(random() * 200); // 90-110 at 1 price digit
      const pnl = Math.round((random() - 0.5 + skill * 0.2) * lots * ticks * ns * 0.04);
      args.push(random() < 0.5 ? 'buy' : 'sell', lots, lots * ticks, pnl);
    }
    await ctx.redis.evalsha(sha, 0, ...args.map(String));
  });
  console.log(`${MASTERS} masters in ${fmtNum((created - t0) / 1000, 1)} s, ${fmtNum(MASTERS * POSITIONS, 0)} closed positions in ${fmtNum((Date.now() - created) / 1000, 1)} s`);
  return ids;
}

/** `requests` GETs of `path()` over HTTP, `concurrency` at a time; latency of each, ms. */
async function measure(base: string, path: () => string, concurrency: number, requests: number): Promise<Summary> {
  const lat: number[] = [];
  let next = 0;
  const client = async () => {
    while (next < requests) {
      next++;
      const t = performance.now();
      const r = await fetch(base + path());
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${r.status} from ${base}`);
      lat.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return summarize(lat);
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:copy-reads');
  const server = await startBenchRedis();
  const env: Record<string, string> = {
    REDIS_URL: server.url, JWT_SECRET: 'bench-secret-0123456789abcdef', KEY_PREFIX: `benchreads${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'silent', MARKETS_FILE: resolve(__dirname, '../../config/markets.json'), REDIS_COMMAND_TIMEOUT_MS: '60000',
    RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000',
  };
  const config = loadConfig(env);
  const ctx = await createContext(config, createLogger('silent'));
  try {
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    const ids = await seed(ctx);
    await withChildServer(__filename, 'app', { ...process.env, ...env }, (port) => requestRoutes(`http://127.0.0.1:${port}`, ids));
  } finally {
    await clearBenchData(ctx.redis as Redis, server.privateServer, config.keyPrefix);
    await ctx.close();
    await server.stop();
  }
}

/** The requests of the run, against the app at `base`: one at a time, then CONCURRENCY at a time. */
async function requestRoutes(base: string, ids: number[]): Promise<void> {
  const random = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const pages = Math.ceil(MASTERS / 10);
  const routes: [string, () => string][] = [
    ['GET /health (baseline)', () => '/health'],
    ['public-masters, random page and sortPreset', () => `/api/copy-master/public-masters?page=${1 + Math.floor(random() * pages)}&sortPreset=${pick(SORT_PRESETS)}`],
    ['public-masters, roiFrom=0 (filtered), random page', () => `/api/copy-master/public-masters?roiFrom=0&page=${1 + Math.floor(random() * pages / 2)}`],
    ['analytics of a random master', () => `/api/copy-master/${pick(ids)}/analytics`],
  ];
  // warm-up (JIT, connections, the child's memoized day names), as a running service would be
  for (const [, path] of routes) await measure(base, path, 1, 50);
  const results: Record<string, Record<string, Summary>> = {};
  for (const [concurrency, requests] of [[1, REQUESTS], [CONCURRENCY, Math.ceil(REQUESTS / 2)]]) {
    const rows: [string, Summary][] = [];
    for (const [name, path] of routes) rows.push([name, await measure(base, path, concurrency, requests)]);
    printTable(`bench:copy-reads — ${MASTERS} masters x ${POSITIONS} closed positions, ${requests} requests per row, ${concurrency} at a time (ms)`,
      ['route', 'p50', 'p99', 'max', 'p99 / baseline p99'],
      rows.map(([name, r]) => [name, r.p50, r.p99, r.max, fmtNum(r.p99 / rows[0][1].p99, 1)]));
    results[`concurrency${concurrency}`] = Object.fromEntries(rows);
  }
  console.log(`results: ${writeResults('copy-reads', { machine: machineInfo(), masters: MASTERS, positions: POSITIONS, results })}`);
}

/** In the child: the app alone, on the parent's Redis and key prefix, until the parent stops it. */
async function serve(): Promise<void> {
  const ctx = await createContext(loadConfig(process.env), createLogger('silent'));
  const http = createApp(ctx).listen(0, '127.0.0.1', () => reportPort((http.address() as AddressInfo).port));
  // a plain exit on stop, so a --cpu-prof child writes its profile
  process.once('SIGTERM', () => process.exit(0));
}

if (process.argv[2] === '--serve') {
  serve().catch(reportFailure);
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
