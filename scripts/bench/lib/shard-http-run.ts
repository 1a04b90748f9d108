import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { createLogger } from '../../../src/platform/config/logger';
import { createContext } from '../../../src/transport/context';
import { createApp } from '../../../src/transport/http/app';
import { benchConfig, benchContext, BENCH_JWT_SECRET } from './bench-context';
import { reportPort, startChildServer, type ChildServer } from './child-server';
import { idleCpuPerSecond, masters, measureCpu, type CommandsByMaster, type PhaseResult } from './master-cpu';
import { postLoad } from './post-load';
import { fundedUsers, shardMap, transferCount, type BenchMarket, type FundedLayout } from './shard-service-run';
import { marketsFileWithShards } from './shard-markets-file';

/** How long each master's CPU is read with the api processes up and idle, before the load. */
const IDLE_MS = 2000;
const API_START_MS = 120_000;
/** A bound on one phase of `requests` per process, however loaded the box (autocannon stops at its count first). */
const LOAD_MAX_SECONDS = 600;

export interface HttpShape {
  /** api processes (ROLES=api), each loaded by its own autocannon. */
  processes: number;
  /** Connections per process. */
  connections: number;
  /**
   * Requests per process, each answered before the phase ends: CPU and transfers are then exactly
   * those of the orders counted (a time window also counted the work of requests still in flight
   * at its end, which at 5–15 s of waiting was most of a window's).
   */
  requests: number;
  /** Users per market (half makers' names, half takers'; all post both sides). */
  users: number;
}

export interface HttpRunResult extends PhaseResult {
  statuses: Record<string, number>;
  /** Transfers sent during the measured load (not the warm-up). */
  transfers: number;
  firstFailure?: string;
  /** Per master, each command's calls and µs per 2xx order. */
  commands: CommandsByMaster;
  /** Per master, CPU µs per second with the api processes up and no request sent (measured before the load). */
  idleUsPerSecond: Record<string, number>;
  /** Per master, that idle CPU over the load's duration, per 2xx order: the part of byMaster no order caused. */
  idlePerOrder: Record<string, number>;
}

/** In the child: an api on the parent's cluster and key prefix (configuration as JSON in BENCH_SHARD_API). */
export async function serveShardApi(): Promise<void> {
  const { url, prefix, env } = JSON.parse(process.env.BENCH_SHARD_API as string) as { url: string; prefix: string; env: Record<string, string> };
  const ctx = await createContext(benchConfig(url, prefix, env), createLogger((process.env.BENCH_API_LOG_LEVEL as 'error' | undefined) ?? 'silent'));
  const server = createApp(ctx).listen(0, '127.0.0.1', () => reportPort((server.address() as AddressInfo).port));
}

/**
 * POST /api/orders on `shape.processes` api processes at once, `shape.requests` each: each request a
 * limit order on one of the markets (round robin) by one of its users (funded at home only), buys
 * and sells within ±10.00 of the mid so about half cross. Redis CPU per 2xx order, every master.
 */
export async function httpRun(url: string, layout: FundedLayout, markets: BenchMarket[], shape: HttpShape, childFile: string): Promise<HttpRunResult> {
  const env = {
    REDIS_CLUSTER: '1',
    ENGINE_SHARDS: String(layout.engineShards),
    ESCROW_HEADROOM_PERCENT: String(layout.headroomPercent),
    MARKETS_FILE: marketsFileWithShards(shardMap(markets, layout)),
    ROLES: 'api',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '2000000',
  };
  const { ctx, prefix } = await benchContext(url, env);
  const children: ChildServer[] = [];
  try {
    const funded = await fundedUsers(ctx, markets, Math.ceil(shape.users / 2));
    const perMarket = funded.map(({ pair, makers, takers }, i) => ({
      pair,
      mid: markets[i].mid,
      lots: markets[i].lots,
      tokens: [...makers, ...takers].map((u) => jwt.sign({ sub: u }, BENCH_JWT_SECRET, { algorithm: 'HS256', expiresIn: '1h' })),
    }));
    const childEnv = { ...process.env, BENCH_SHARD_API: JSON.stringify({ url, prefix, env }) };
    // a loaded 2-core box can take longer than the default 30 s to start an api (its library load, its links)
    for (let i = 0; i < shape.processes; i++) children.push(await startChildServer(childFile, ['--serve', 'api'], childEnv, API_START_MS));
    // request n: market n mod 3; the k-th request of a market alternates sides and goes round its users
    const request = (n: number) => {
      const m = perMarket[n % perMarket.length];
      const k = Math.floor(n / perMarket.length);
      const side = k % 2 === 0 ? 'buy' : 'sell';
      const ticks = m.mid + Math.floor(Math.random() * 2001) - 1000;
      const body = { currencyPairCode: m.pair.code, side, type: 'limit', price: ticks / 10 ** m.pair.digitsPrice, amount: m.lots / 10 ** m.pair.digitsAmount };
      return { token: m.tokens[k % m.tokens.length], body: JSON.stringify(body) };
    };
    let n = 0;
    const next = () => request(n++);
    const everyUserOnce = perMarket.length * perMarket[0].tokens.length;
    const statuses: Record<string, number> = {};
    let ok = 0;
    let failed = 0;
    let firstFailure: string | undefined;
    const onResponse = (status: number, body: string) => {
      if (status < 200 || status >= 300) {
        failed++;
        firstFailure ??= `${status} ${body.slice(0, 200)}`;
        return;
      }
      ok++;
      const s = /"status":"([A-Za-z]+)"/.exec(body)?.[1] ?? 'unknown';
      statuses[s] = (statuses[s] ?? 0) + 1;
    };
    // not measured: each user's first top-up (and most first looks at a user's home, cached for an
    // api process's life), which a short run would otherwise count as steady state:
    // one order of every user, split over the processes
    const perProcess = Math.ceil(everyUserOnce / children.length);
    const warm = await Promise.all(children.map((c) =>
      postLoad({ port: c.port, path: '/api/orders', connections: shape.connections, durationSeconds: 120, requests: perProcess, next, onResponse })));
    const warmSocketErrors = warm.reduce((e, r) => e + r.errors + r.timeouts, 0);
    ok = 0;
    for (const s of Object.keys(statuses)) delete statuses[s];
    const transfersBefore = await transferCount(ctx);
    const idleUsPerSecond = await idleCpuPerSecond(ctx.redis, IDLE_MS);
    const m = await measureCpu(
      ctx.redis,
      () => Promise.all(children.map((c) =>
        postLoad({ port: c.port, path: '/api/orders', connections: shape.connections, durationSeconds: LOAD_MAX_SECONDS, requests: shape.requests, next, onResponse }))),
      () => ok,
    );
    const errors = warmSocketErrors + failed + m.result.reduce((e, r) => e + r.errors + r.timeouts, 0);
    return {
      ordersPerSec: (ok / m.elapsedMs) * 1000,
      busiestCpuUs: m.busiestCpuUs,
      allCpuUs: m.allCpuUs,
      byMaster: m.byMaster,
      errors,
      statuses,
      transfers: (await transferCount(ctx)) - transfersBefore,
      firstFailure,
      commands: m.commands,
      idleUsPerSecond,
      idlePerOrder: Object.fromEntries(Object.entries(idleUsPerSecond).map(([node, us]) => [node, (us * m.elapsedMs) / 1000 / Math.max(1, ok)])),
    };
  } finally {
    for (const c of children) await c.stop();
    for (const node of masters(ctx.redis).values()) await node.flushall();
    await ctx.close();
    rmSync(env.MARKETS_FILE, { force: true });
  }
}
