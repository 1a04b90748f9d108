/**
 * npm run bench:http — POST /api/orders of the real app over HTTP (auth, rate limit, validation,
 * service, Lua engine, DTO) against a trivial Express 5 route with express.json, in the same run
 * (docs/performance.md, issue 2). Each server runs in a child process of its own; autocannon drives it from
 * this one. Orders are limit buys and sells at random prices around one mid, so some rest and
 * some cross; every response that is not 2xx counts as an error.
 *
 * Env: BENCH_RUNS (5), BENCH_DURATION (10 s per server per run), BENCH_CONNECTIONS (16),
 * BENCH_USERS (20), BENCH_MAX_SECONDS (900), REDIS_URL (else a private redis-server),
 * RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST (default 1e6 / 2e6: the bench measures throughput,
 * not the limiter's refusals; the limiter still runs on every request).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import express from 'express';
import jwt from 'jsonwebtoken';
import type Redis from 'ioredis';
import { loadConfig, type AppConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import { createApp } from '../../src/transport/http/app';
import { seedMarkets } from '../../src/markets/market-seeder';
import { advanceWhile, startProgress, type Progress } from '../lib/progress';
import { reportFailure, reportPort, withChildServer } from './lib/child-server';
import { envInt, exitAfter } from './lib/deadline';
import { postLoad, type PostLoadSample } from './lib/post-load';
import { clearBenchData, startBenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { median } from './lib/stats';

const RUNS = envInt('BENCH_RUNS', 5);
const DURATION = envInt('BENCH_DURATION', 10);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 16);
const USERS = envInt('BENCH_USERS', 20);
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
  const server = createApp(ctx).listen(0, '127.0.0.1', () =>
    reportPort((server.address() as AddressInfo).port),
  );
}

// ---- parent side ----

type Sample = PostLoadSample;

interface AppSample extends Sample {
  /** Mean orders per placeSpotOrders call, from the app's /metrics. */
  ordersPerCall: number;
  rested: number;
  filled: number;
  partiallyFilled: number;
}

function orderBody(): string {
  // 50,000.00 ± 10.00 USDT: buys and sells overlap, so about half of them cross on arrival
  const side = Math.random() < 0.5 ? 'buy' : 'sell';
  const price = (5_000_000 + Math.floor(Math.random() * 2001) - 1000) / 100;
  return JSON.stringify({ currencyPairCode: PAIR, side, type: 'limit', price, amount: 0.001 });
}

async function load(port: number, tokens: string[], onBody?: (status: number, body: string) => void): Promise<Sample> {
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

async function oneRun(
  redisUrl: string,
  privateServer: boolean,
  progress: Progress,
): Promise<{ baseline: Sample; app: AppSample }> {
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

    const baseline = await withChildServer(__filename, 'baseline', env, (port) =>
      advanceWhile(progress, DURATION, load(port, tokens)),
    );
    const statuses: Record<string, number> = {};
    let firstFailure: string | undefined;
    let ordersPerCall = NaN;
    const app = await withChildServer(__filename, 'app', env, async (port) => {
      const onBody = (status: number, body: string) => {
        if (status < 200 || status >= 300) {
          firstFailure ??= `${status} ${body.slice(0, 200)}`;
          return;
        }
        const s = /"status":"([A-Za-z]+)"/.exec(body)?.[1] ?? 'unknown';
        statuses[s] = (statuses[s] ?? 0) + 1;
      };
      const sample = await advanceWhile(progress, DURATION, load(port, tokens, onBody));
      // how much the engine's group commit batched under this load (src/spot/spot-engine.ts)
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
      ordersPerCall = metric('spot_place_batch_orders_sum') / metric('spot_place_batch_orders_count');
      return sample;
    });
    if (firstFailure) console.log(`  first non-2xx response: ${firstFailure}`);
    return {
      baseline,
      app: {
        ...app,
        ordersPerCall,
        rested: statuses.open ?? 0,
        filled: statuses.filled ?? 0,
        partiallyFilled: statuses.partiallyFilled ?? 0,
      },
    };
  } finally {
    await clearBenchData(ctx.redis as Redis, privateServer, prefix);
    await ctx.close();
  }
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:http');
  const server = await startBenchRedis();
  const started = new Date();
  console.log(
    `bench:http — ${RUNS} runs, ${DURATION} s per server, ${CONNECTIONS} connections, ${USERS} users, ` +
      `POST /api/orders on ${PAIR}; Redis at ${server.url}${server.privateServer ? ' (private)' : ''}`,
  );
  const runs: { baseline: Sample; app: AppSample }[] = [];
  // seconds under load: the baseline's and the app's, per run
  const progress = startProgress('bench:http', RUNS * 2 * DURATION, { unit: 's of load' });
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = await oneRun(server.url, server.privateServer, progress);
      runs.push(r);
      console.log(
        `run ${i + 1}/${RUNS}: app ${fmtNum(r.app.reqPerSec)} req/s (p50 ${r.app.latencyP50Ms} ms, p99 ${r.app.latencyP99Ms} ms, ` +
          `${r.app.non2xx} non-2xx, ${r.app.errors} errors; ${r.app.rested} rested, ${r.app.filled} filled, ` +
          `${r.app.partiallyFilled} partly filled; ${fmtNum(r.app.ordersPerCall, 1)} orders per script call), ` +
          `baseline ${fmtNum(r.baseline.reqPerSec)} req/s`,
      );
    }
  } finally {
    progress.stop();
    await server.stop();
  }
  const med = <T>(pick: (r: { baseline: Sample; app: AppSample }) => T & number) => median(runs.map(pick));
  const app = {
    reqPerSec: med((r) => r.app.reqPerSec),
    latencyP50Ms: med((r) => r.app.latencyP50Ms),
    latencyP99Ms: med((r) => r.app.latencyP99Ms),
    errorRate: med((r) => r.app.errorRate),
    ordersPerCall: med((r) => r.app.ordersPerCall),
  };
  const baseline = {
    reqPerSec: med((r) => r.baseline.reqPerSec),
    latencyP50Ms: med((r) => r.baseline.latencyP50Ms),
    latencyP99Ms: med((r) => r.baseline.latencyP99Ms),
    errorRate: med((r) => r.baseline.errorRate),
  };
  const totals = runs.reduce(
    (t, r) => ({
      requests: t.requests + r.app.requests,
      non2xx: t.non2xx + r.app.non2xx,
      errors: t.errors + r.app.errors,
      rested: t.rested + r.app.rested,
      filled: t.filled + r.app.filled,
      partiallyFilled: t.partiallyFilled + r.app.partiallyFilled,
    }),
    { requests: 0, non2xx: 0, errors: 0, rested: 0, filled: 0, partiallyFilled: 0 },
  );
  printTable(
    `Medians of ${RUNS} runs (${DURATION} s each, ${CONNECTIONS} connections)`,
    ['server', 'req/s', 'p50 ms', 'p99 ms', 'error rate', 'req/s ratio'],
    [
      [
        'POST /api/orders (real app)',
        app.reqPerSec,
        app.latencyP50Ms,
        app.latencyP99Ms,
        `${(app.errorRate * 100).toFixed(3)} %`,
        fmtNum(app.reqPerSec / baseline.reqPerSec, 3),
      ],
      [
        'trivial Express 5 route',
        baseline.reqPerSec,
        baseline.latencyP50Ms,
        baseline.latencyP99Ms,
        `${(baseline.errorRate * 100).toFixed(3)} %`,
        '1',
      ],
    ],
  );
  console.log(
    `\nreal app over all runs: ${totals.requests} requests, ${totals.non2xx} non-2xx, ${totals.errors} socket errors; ` +
      `orders ${totals.rested} rested, ${totals.filled} filled, ${totals.partiallyFilled} partially filled; ` +
      `${fmtNum(app.ordersPerCall, 1)} orders per placeSpotOrders call (median of runs, group commit)`,
  );
  const file = writeResults('http', {
    bench: 'http',
    startedAt: started.toISOString(),
    machine: machineInfo(),
    params: { runs: RUNS, durationSeconds: DURATION, connections: CONNECTIONS, users: USERS, pair: PAIR },
    medians: { app, baseline, ratio: app.reqPerSec / baseline.reqPerSec },
    totals,
    runs,
  });
  console.log(`\nwrote ${file}`);
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
