/**
 * npm run bench:http — POST /api/orders of the real app over HTTP (auth, rate limit, validation,
 * service, Lua engine, DTO) against a trivial Express 5 route with express.json, in the same run
 * (docs/performance.md, issue 2). Each server runs in a child process of its own; autocannon drives it from
 * this one. Orders are limit buys and sells at random prices around one mid, so some rest and
 * some cross; every response that is not 2xx counts as an error.
 *
 * Each server's own CPU per request (from /proc) is printed beside its rate: on a shared box the
 * rate follows whoever else runs, the CPU a request costs much less. Then BENCH_PROCESSES api
 * processes at once against the same Redis, each loaded by its own autocannon: Redis CPU per order
 * (their wall-clock rate on 2 cores measures contention, not scaling).
 *
 * Env: BENCH_RUNS (5), BENCH_DURATION (10 s per server per run), BENCH_CONNECTIONS (16, per
 * process), BENCH_USERS (20), BENCH_PROCESSES (4; 0 skips that phase), BENCH_PROFILE (1: the single
 * app process is profiled while under load; profiles in bench-results/, summarized at the end),
 * BENCH_MAX_SECONDS (900), REDIS_URL (else a private redis-server), RATE_LIMIT_PER_SECOND /
 * RATE_LIMIT_BURST (default 1e6 / 2e6: the bench measures throughput, not the limiter's refusals;
 * the limiter still runs on every request).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import express from 'express';
import jwt from 'jsonwebtoken';
import type Redis from 'ioredis';
import { loadConfig, type AppConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { createApp } from '../../src/transport/http/app';
import { seedMarkets } from '../../src/markets/market-seeder';
import { advanceWhile, startProgress, type Progress } from '../lib/progress';
import { processCpuSeconds, reportFailure, reportPort, startChildServer, withChildServer, type ChildServer } from './lib/child-server';
import { startCpuProfile, summarizeCpuProfile } from './lib/cpu-profile';
import { REQUEST_LAYERS } from './lib/request-layers';
import { envInt, exitAfter } from './lib/deadline';
import { postLoad, type PostLoadSample } from './lib/post-load';
import { clearBenchData, startBenchRedis } from './lib/redis-server';
import { commandStats, serverCpuSeconds, type CommandStat } from './lib/redis-info';
import { fileStamp, fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { median } from './lib/stats';

const RUNS = envInt('BENCH_RUNS', 5);
const DURATION = envInt('BENCH_DURATION', 10);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 16);
const USERS = envInt('BENCH_USERS', 20);
const PROCESSES = process.env.BENCH_PROCESSES === '0' ? 0 : envInt('BENCH_PROCESSES', 4);
const PROFILE = process.env.BENCH_PROFILE === '1';
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 900);
const PAIR = 'BTC_USDT';
const JWT_SECRET = 'bench-secret-0123456789abcdef';

function benchConfig(redisUrl: string, prefix: string): AppConfig {
  return loadConfig({
    REDIS_URL: redisUrl,
    JWT_SECRET,
    KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    MARKETS_FILE: resolve(__dirname, '../../config/markets.json'),
    RATE_LIMIT_PER_SECOND: process.env.RATE_LIMIT_PER_SECOND ?? '1000000',
    RATE_LIMIT_BURST: process.env.RATE_LIMIT_BURST ?? '2000000',
  });
}

// ---- child side: one server, then wait to be killed ----

async function serve(kind: string): Promise<void> {
  if (kind === 'baseline') {
    // What Express itself costs for the same request: parse the JSON body, answer JSON.
    const app = express();
    app.disable('x-powered-by');
    app.use(express.json({ limit: '64kb' }));
    app.post('/api/orders', (req, res) => {
      res.json({
        id: 1,
        status: 'open',
        side: req.body?.side,
        price: req.body?.price,
        amount: req.body?.amount,
      });
    });
    const server = app.listen(0, '127.0.0.1', () => reportPort((server.address() as AddressInfo).port));
    return;
  }
  const ctx = await createContext(
    benchConfig(process.env.BENCH_REDIS_URL as string, process.env.BENCH_PREFIX as string),
    createLogger('silent'),
  );
  const server = createApp(ctx).listen(0, '127.0.0.1', () => {
    void profiledUntilStopped().then(() => reportPort((server.address() as AddressInfo).port));
  });
}

/** With BENCH_PROFILE_DIR: the app's CPU profile from listening to being stopped (SIGTERM). */
async function profiledUntilStopped(): Promise<void> {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return;
  const stop = await startCpuProfile(dir, 'app');
  process.once('SIGTERM', () => void stop().finally(() => process.exit(0)));
}

// ---- parent side ----

interface Sample extends PostLoadSample {
  /** The server process's CPU (user + system) per answered request, µs. */
  serverCpuUs: number;
}

interface AppSample extends Sample {
  /** Mean orders per placeSpotOrders call, from the app's /metrics. */
  ordersPerCall: number;
  /** Redis main-thread CPU per answered order, µs. */
  redisCpuUs: number;
  /** Reads Redis made from client sockets per answered order: about the api's socket writes to it (INFO stats total_reads_processed). */
  redisReadsPerOrder: number;
  /** Per command (scripts' inner calls included, as INFO commandstats counts them): calls and µs per answered order. */
  commandsPerOrder: Record<string, { calls: number; usec: number }>;
  rested: number;
  filled: number;
  partiallyFilled: number;
}

/** BENCH_PROCESSES api processes at once against the one Redis. */
interface ManySample {
  processes: number;
  reqPerSec: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  redisCpuUs: number;
  ordersPerCall: number;
}

interface Run {
  baseline: Sample;
  app: AppSample;
  many?: ManySample;
}

function orderBody(): string {
  // 50,000.00 ± 10.00 USDT: buys and sells overlap, so about half of them cross on arrival
  const side = Math.random() < 0.5 ? 'buy' : 'sell';
  const price = (5_000_000 + Math.floor(Math.random() * 2001) - 1000) / 100;
  return JSON.stringify({ currencyPairCode: PAIR, side, type: 'limit', price, amount: 0.001 });
}

function load(port: number, tokens: string[], onBody?: (status: number, body: string) => void): Promise<PostLoadSample> {
  let next = 0;
  return postLoad({
    port,
    path: '/api/orders',
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    next: () => ({ token: tokens[next++ % tokens.length], body: orderBody() }),
    onResponse: onBody,
  });
}

/** `run` with the server's CPU time read before and after: its CPU per answered request. */
async function withServerCpu<T extends PostLoadSample>(server: ChildServer, run: () => Promise<T>): Promise<T & { serverCpuUs: number }> {
  const before = processCpuSeconds(server.pid);
  const sample = await run();
  const cpu = processCpuSeconds(server.pid) - before;
  return { ...sample, serverCpuUs: (cpu * 1e6) / Math.max(1, sample.requests) };
}

/** Counts the statuses of 2xx order answers and keeps the first failure. */
function answerTally() {
  const statuses: Record<string, number> = {};
  let ok = 0;
  let firstFailure: string | undefined;
  const onBody = (status: number, body: string) => {
    if (status < 200 || status >= 300) {
      firstFailure ??= `${status} ${body.slice(0, 200)}`;
      return;
    }
    ok++;
    const s = /"status":"([A-Za-z]+)"/.exec(body)?.[1] ?? 'unknown';
    statuses[s] = (statuses[s] ?? 0) + 1;
  };
  return { statuses, onBody, ok: () => ok, firstFailure: () => firstFailure };
}

/** What each command cost per order between two INFO commandstats, the bench's own INFO calls left out. */
function perOrder(before: Map<string, CommandStat>, after: Map<string, CommandStat>, orders: number) {
  const out: Record<string, { calls: number; usec: number }> = {};
  for (const [name, a] of after) {
    if (name === 'info') continue;
    const b = before.get(name) ?? { calls: 0, usec: 0 };
    if (a.calls > b.calls) out[name] = { calls: (a.calls - b.calls) / Math.max(1, orders), usec: (a.usec - b.usec) / Math.max(1, orders) };
  }
  return out;
}

/** Socket reads Redis has made from its clients so far. */
async function readsProcessed(redis: Redis): Promise<number> {
  return Number(/^total_reads_processed:(\d+)/m.exec(await redis.info('stats'))?.[1]);
}

/** Orders per placeSpotOrders call so far, from an app's /metrics (group commit, src/spot/spot-engine.ts). */
async function batchTotals(port: number): Promise<{ orders: number; calls: number }> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
  return { orders: metric('spot_place_batch_orders_sum'), calls: metric('spot_place_batch_orders_count') };
}

async function oneRun(
  redisUrl: string,
  privateServer: boolean,
  progress: Progress,
  profileDir: string | undefined,
): Promise<Run> {
  const prefix = `benchhttp${randomBytes(3).toString('hex')}`;
  const config = benchConfig(redisUrl, prefix);
  const ctx = await createContext(config, createLogger('silent'));
  const tokens: string[] = [];
  try {
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    for (let u = 0; u < USERS; u++) {
      await ctx.wallets.deposit(`u${u}`, 'USDT', 10_000_000);
      await ctx.wallets.deposit(`u${u}`, 'BTC', 1_000);
      tokens.push(jwt.sign({ sub: `u${u}` }, JWT_SECRET, { algorithm: 'HS256', expiresIn: '1h' }));
    }
    const env = { ...process.env, BENCH_REDIS_URL: redisUrl, BENCH_PREFIX: prefix };
    const redisCpu = () => serverCpuSeconds(ctx.redis as Redis);

    const baseline = await withChildServer(__filename, 'baseline', env, (port, server) =>
      withServerCpu(server, () => advanceWhile(progress, DURATION, load(port, tokens))),
    );
    const tally = answerTally();
    const appEnv = profileDir ? { ...env, BENCH_PROFILE_DIR: profileDir } : env;
    const app = await withChildServer(__filename, 'app', appEnv, async (port, server) => {
      const cpu0 = await redisCpu();
      const stats0 = await commandStats(ctx.redis as Redis);
      const reads0 = await readsProcessed(ctx.redis as Redis);
      const sample = await withServerCpu(server, () => advanceWhile(progress, DURATION, load(port, tokens, tally.onBody)));
      const redisCpuUs = (((await redisCpu()) - cpu0) * 1e6) / Math.max(1, tally.ok());
      const commandsPerOrder = perOrder(stats0, await commandStats(ctx.redis as Redis), tally.ok());
      const redisReadsPerOrder = ((await readsProcessed(ctx.redis as Redis)) - reads0) / Math.max(1, tally.ok());
      const batch = await batchTotals(port);
      return { ...sample, redisCpuUs, commandsPerOrder, redisReadsPerOrder, ordersPerCall: batch.orders / batch.calls };
    });
    if (tally.firstFailure()) console.log(`  first non-2xx response: ${tally.firstFailure()}`);
    const many = PROCESSES > 0 ? await manyProcesses(env, tokens, redisCpu, progress) : undefined;
    return {
      baseline,
      app: {
        ...app,
        rested: tally.statuses.open ?? 0,
        filled: tally.statuses.filled ?? 0,
        partiallyFilled: tally.statuses.partiallyFilled ?? 0,
      },
      many,
    };
  } finally {
    await clearBenchData(ctx.redis as Redis, privateServer, prefix);
    await ctx.close();
  }
}

/** PROCESSES api processes, each under its own autocannon, at once: Redis CPU per order. */
async function manyProcesses(env: NodeJS.ProcessEnv, tokens: string[], redisCpu: () => Promise<number>, progress: Progress): Promise<ManySample> {
  const servers: ChildServer[] = [];
  try {
    for (let i = 0; i < PROCESSES; i++) servers.push(await startChildServer(__filename, ['--serve', 'app'], env));
    const tally = answerTally();
    const cpu0 = await redisCpu();
    const samples = await advanceWhile(progress, DURATION, Promise.all(servers.map((s) => load(s.port, tokens, tally.onBody))));
    const redisCpuUs = (((await redisCpu()) - cpu0) * 1e6) / Math.max(1, tally.ok());
    if (tally.firstFailure()) console.log(`  first non-2xx response (${PROCESSES} processes): ${tally.firstFailure()}`);
    const batches = await Promise.all(servers.map((s) => batchTotals(s.port)));
    return {
      processes: PROCESSES,
      reqPerSec: samples.reduce((t, s) => t + s.reqPerSec, 0),
      latencyP99Ms: Math.max(...samples.map((s) => s.latencyP99Ms)),
      non2xx: samples.reduce((t, s) => t + s.non2xx, 0),
      errors: samples.reduce((t, s) => t + s.errors, 0),
      redisCpuUs,
      ordersPerCall: batches.reduce((t, b) => t + b.orders, 0) / batches.reduce((t, b) => t + b.calls, 0),
    };
  } finally {
    for (const s of servers) await s.stop();
  }
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:http');
  const server = await startBenchRedis();
  const started = new Date();
  const profileDir = PROFILE ? resolve(process.cwd(), 'bench-results', `http-profile-${fileStamp(started)}`) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  console.log(
    `bench:http — ${RUNS} runs, ${DURATION} s per server, ${CONNECTIONS} connections, ${USERS} users, ` +
      `POST /api/orders on ${PAIR}${PROCESSES ? `, then ${PROCESSES} api processes at once` : ''}; ` +
      `Redis at ${server.url}${server.privateServer ? ' (private)' : ''}${profileDir ? `; app profiled into ${profileDir}` : ''}`,
  );
  const runs: Run[] = [];
  // seconds under load: the baseline's, the app's and the processes', per run
  const progress = startProgress('bench:http', RUNS * (PROCESSES ? 3 : 2) * DURATION, { unit: 's of load' });
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = await oneRun(server.url, server.privateServer, progress, profileDir);
      runs.push(r);
      console.log(
        `run ${i + 1}/${RUNS}: app ${fmtNum(r.app.reqPerSec)} req/s (p50 ${r.app.latencyP50Ms} ms, p99 ${r.app.latencyP99Ms} ms, ` +
          `${fmtNum(r.app.serverCpuUs, 0)} µs CPU/req, Redis ${fmtNum(r.app.redisCpuUs, 1)} µs and ${fmtNum(r.app.redisReadsPerOrder, 2)} socket reads/order, ` +
          `${r.app.non2xx} non-2xx, ${r.app.errors} errors; ${r.app.rested} rested, ${r.app.filled} filled, ` +
          `${r.app.partiallyFilled} partly filled; ${fmtNum(r.app.ordersPerCall, 1)} orders per script call), ` +
          `baseline ${fmtNum(r.baseline.reqPerSec)} req/s (${fmtNum(r.baseline.serverCpuUs, 0)} µs CPU/req); ` +
          `ratio ${fmtNum(r.app.reqPerSec / r.baseline.reqPerSec, 3)}` +
          (r.many
            ? `; ${r.many.processes} processes ${fmtNum(r.many.reqPerSec)} req/s, p99 ${r.many.latencyP99Ms} ms, ` +
              `Redis ${fmtNum(r.many.redisCpuUs, 1)} µs/order at ${fmtNum(r.many.ordersPerCall, 1)} orders per call, ` +
              `${r.many.non2xx} non-2xx, ${r.many.errors} errors`
            : ''),
      );
    }
  } finally {
    progress.stop();
    await server.stop();
  }
  const med = (pick: (r: Run) => number) => median(runs.map(pick));
  const app = {
    reqPerSec: med((r) => r.app.reqPerSec),
    latencyP50Ms: med((r) => r.app.latencyP50Ms),
    latencyP99Ms: med((r) => r.app.latencyP99Ms),
    errorRate: med((r) => r.app.errorRate),
    ordersPerCall: med((r) => r.app.ordersPerCall),
    serverCpuUs: med((r) => r.app.serverCpuUs),
    redisCpuUs: med((r) => r.app.redisCpuUs),
  };
  const baseline = {
    reqPerSec: med((r) => r.baseline.reqPerSec),
    latencyP50Ms: med((r) => r.baseline.latencyP50Ms),
    latencyP99Ms: med((r) => r.baseline.latencyP99Ms),
    errorRate: med((r) => r.baseline.errorRate),
    serverCpuUs: med((r) => r.baseline.serverCpuUs),
  };
  // the acceptance figure: each run's ratio, then their median (not a ratio of medians)
  const ratio = med((r) => r.app.reqPerSec / r.baseline.reqPerSec);
  const cpuRatio = med((r) => r.baseline.serverCpuUs / r.app.serverCpuUs);
  const many = PROCESSES
    ? {
        processes: PROCESSES,
        reqPerSec: med((r) => r.many?.reqPerSec ?? NaN),
        latencyP99Ms: med((r) => r.many?.latencyP99Ms ?? NaN),
        redisCpuUs: med((r) => r.many?.redisCpuUs ?? NaN),
        ordersPerCall: med((r) => r.many?.ordersPerCall ?? NaN),
      }
    : undefined;
  const totals = runs.reduce(
    (t, r) => ({
      requests: t.requests + r.app.requests,
      non2xx: t.non2xx + r.app.non2xx + (r.many?.non2xx ?? 0),
      errors: t.errors + r.app.errors + (r.many?.errors ?? 0),
      rested: t.rested + r.app.rested,
      filled: t.filled + r.app.filled,
      partiallyFilled: t.partiallyFilled + r.app.partiallyFilled,
    }),
    { requests: 0, non2xx: 0, errors: 0, rested: 0, filled: 0, partiallyFilled: 0 },
  );
  printTable(
    `Medians of ${RUNS} runs (${DURATION} s each, ${CONNECTIONS} connections per process)`,
    ['server', 'req/s', 'p50 ms', 'p99 ms', 'error rate', 'server CPU µs/req', 'Redis CPU µs/order'],
    [
      [
        'POST /api/orders (real app)',
        app.reqPerSec,
        app.latencyP50Ms,
        app.latencyP99Ms,
        `${(app.errorRate * 100).toFixed(3)} %`,
        fmtNum(app.serverCpuUs, 0),
        fmtNum(app.redisCpuUs, 1),
      ],
      [
        'trivial Express 5 route',
        baseline.reqPerSec,
        baseline.latencyP50Ms,
        baseline.latencyP99Ms,
        `${(baseline.errorRate * 100).toFixed(3)} %`,
        fmtNum(baseline.serverCpuUs, 0),
        '',
      ],
      ...(many
        ? [[`${many.processes} api processes at once`, many.reqPerSec, '', many.latencyP99Ms, '', '', fmtNum(many.redisCpuUs, 1)]]
        : []),
    ],
  );
  console.log(
    `\nreal app / trivial route: req/s ${fmtNum(ratio, 3)} (median of the runs' ratios: ` +
      `${runs.map((r) => fmtNum(r.app.reqPerSec / r.baseline.reqPerSec, 3)).join(', ')}); ` +
      `server CPU per request ${fmtNum(cpuRatio, 3)} of the app's`,
  );
  console.log(
    `real app over all runs: ${totals.requests} requests, ${totals.non2xx} non-2xx, ${totals.errors} socket errors; ` +
      `orders ${totals.rested} rested, ${totals.filled} filled, ${totals.partiallyFilled} partially filled; ` +
      `${fmtNum(app.ordersPerCall, 1)} orders per placeSpotOrders call (median of runs, group commit)` +
      (many ? `; ${many.processes} processes: ${fmtNum(many.ordersPerCall, 1)} per call` : ''),
  );
  const last = runs.at(-1) as Run;
  printTable(
    'Redis commands per order, last run (INFO commandstats: a script\'s own commands are counted too)',
    ['command', 'calls/order', 'µs/order'],
    Object.entries(last.app.commandsPerOrder)
      .sort((a, b) => b[1].usec - a[1].usec)
      .map(([name, c]) => [name, fmtNum(c.calls, 2), fmtNum(c.usec, 1)]),
  );
  const profile = profileDir ? profileReport(profileDir, app.serverCpuUs) : undefined;
  const file = writeResults('http', {
    bench: 'http',
    startedAt: started.toISOString(),
    machine: machineInfo(),
    params: { runs: RUNS, durationSeconds: DURATION, connections: CONNECTIONS, users: USERS, pair: PAIR, processes: PROCESSES },
    medians: { app, baseline, ratio, cpuRatio, many },
    totals,
    runs,
    profile,
  });
  console.log(`\nwrote ${file}`);
}

/** The app's profiles (one per run), summarized and printed: where a request's CPU goes. */
function profileReport(dir: string, cpuUsPerRequest: number) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f));
  const summaries = files.map((f) => summarizeCpuProfile(f, 25, REQUEST_LAYERS));
  const last = summaries.at(-1);
  if (!last) return undefined;
  const pct = (s: number) => `${(s * 100).toFixed(1)} %`;
  printTable(`App CPU by part of the request (innermost part on the stack; µs of the median ${fmtNum(cpuUsPerRequest, 0)} µs CPU per request)`,
    ['part', 'share', 'µs/request'], last.byLayer.map((a) => [a.name, pct(a.share), fmtNum(a.share * cpuUsPerRequest, 0)]));
  printTable(`App CPU by area (self time, last of ${files.length} profiles, ${fmtNum(last.busyMs, 0)} ms busy)`, ['area', 'share'],
    last.byArea.map((a) => [a.name, pct(a.share)]));
  printTable('App CPU by function (self time)', ['function', 'share'], last.topSelf.map((a) => [a.name, pct(a.share)]));
  printTable('Project functions on the stack (inclusive)', ['function', 'share'], last.topInclusive.map((a) => [a.name, pct(a.share)]));
  return { files, summaries };
}

if (process.argv[2] === '--serve') {
  serve(process.argv[3] ?? 'app').catch(reportFailure);
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
