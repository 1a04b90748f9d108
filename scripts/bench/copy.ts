/**
 * npm run bench:copy — one master fill mirrored to BENCH_FOLLOWERS (1,000) followers (issue 9):
 * p50/p99/max from the master's fill to each follower's order (the engine timestamp of each), and the
 * fan-out rate, beside the same run's baseline: as many plain create-orders (market, the same size,
 * the same 32 at a time) from as many ordinary accounts. The mirror runs in this process, as the
 * worker's job would (CopyMirrorService.handleEntry on the master's stream entry), without BullMQ.
 *
 * Env: BENCH_FOLLOWERS (1000), BENCH_MAX_SECONDS (600), REDIS_URL (else a private redis-server).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type Redis from 'ioredis';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { parseEntry } from '../../src/platform/market-event';
import { createContext, type AppContext } from '../../src/transport/context';
import { seedMarkets } from '../../src/markets/market-seeder';
import { envInt, exitAfter } from './lib/deadline';
import { deleteByPrefix, startBenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { summarize } from './lib/stats';

const FOLLOWERS = envInt('BENCH_FOLLOWERS', 1_000);
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

async function run(ctx: AppContext) {
  const mm = await account(ctx, 'mm', 10_000_000);
  await order(ctx, 'mm', mm, false, 5_000, 100);
  await order(ctx, 'mm', mm, true, 5_000, 99);
  await ctx.wallets.deposit('max', 'USDT', 1_000_000);
  const master = await ctx.copy.masters.create('max', {
    name: 'Max', strategyName: 'bench', leverage: 10, currencyCode: 'USDT', slaveIncomePercentage: 20, commissionRate: 0, amount: 1_000_000,
  });
  const followers = Array.from({ length: FOLLOWERS }, (_, i) => `f${i}`);
  const setup = Date.now();
  await inChunks(followers, async (u) => {
    await ctx.wallets.deposit(u, 'USDT', 2_000);
    const s = await ctx.copy.slaves.create(u, { name: u, leverage: 10, currencyCode: 'USDT' });
    await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: s.id, currencyCode: 'USDT', amount: 2_000 });
    await ctx.copy.slaves.start(u, { copyMasterFuturesAccountId: master.id, copySlaveFuturesAccountId: s.id, margin: 1_000 });
  });
  console.log(`${FOLLOWERS} followers subscribed in ${fmtNum((Date.now() - setup) / 1000, 1)} s`);

  // the master's fill, then its stream entry handed to the mirror as the worker would
  const stream = ctx.keys.events('futures', PAIR);
  const last = (await ctx.redis.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
  const mOrder = await order(ctx, 'max', master.id, true, MASTER_AMOUNT);
  const fillTs = Number((await ctx.futures.accountReader.order(String(mOrder.id))).uts);
  const t0 = Date.now();
  for (const [id, fields] of await ctx.redis.xrange(stream, `(${last}`, '+')) await ctx.copy.mirror.handleEntry(parseEntry(id, fields));
  const fanoutMs = Date.now() - t0;
  const latencies: number[] = [];
  for (const [i, u] of followers.entries()) {
    const subs = await ctx.copy.slaves.following(u, false, { page: 1, pageSize: 1 });
    // one follower order per master fill (copy:<masterOrderId>:<subId>:<tradeId>): the first one counts
    const prefix = `copy:${mOrder.id}:${subs.items[0].id}:`;
    const mine = (await ctx.futures.orders.ordersHistory(u, { Page: 1, PageSize: 100 })).filter((o) => o.clientOrderId?.startsWith(prefix));
    if (!mine.length) throw new Error(`follower ${i} has no mirrored order`);
    latencies.push(Math.min(...mine.map((o) => Date.parse(o.updateTimestamp))) - fillTs);
  }

  // baseline: the same number of plain create-orders, same size, same concurrency
  const plain = await Promise.all(followers.map(async (u) => [u, await account(ctx, `p-${u}`, 2_000)] as const));
  const b0 = Date.now();
  const baseline: number[] = [];
  await inChunks(plain, async ([u, acct]) => {
    await order(ctx, `p-${u}`, acct, true, 0.1);
    baseline.push(Date.now() - b0);
  });
  const baselineMs = Date.now() - b0;
  return { latency: summarize(latencies), fanoutMs, fanoutPerSec: FOLLOWERS / (fanoutMs / 1000), baseline: summarize(baseline), baselineMs, baselinePerSec: FOLLOWERS / (baselineMs / 1000) };
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:copy');
  const server = await startBenchRedis();
  const config = loadConfig({
    REDIS_URL: server.url, JWT_SECRET: 'bench-secret-0123456789abcdef', KEY_PREFIX: `benchcopy${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'silent', MARKETS_FILE: resolve(__dirname, '../../config/markets.json'), REDIS_COMMAND_TIMEOUT_MS: '60000',
  });
  const ctx = await createContext(config, createLogger('silent'));
  try {
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    const r = await run(ctx);
    printTable(`bench:copy — one master fill, ${FOLLOWERS} followers (ms)`, ['measure', 'p50', 'p99', 'max', 'total', 'per s'], [
      ['master fill → follower order', r.latency.p50, r.latency.p99, r.latency.max, r.fanoutMs, fmtNum(r.fanoutPerSec, 0)],
      [`baseline: ${FOLLOWERS} plain create-orders`, r.baseline.p50, r.baseline.p99, r.baseline.max, r.baselineMs, fmtNum(r.baselinePerSec, 0)],
    ]);
    console.log(`results: ${writeResults('copy', { machine: machineInfo(), followers: FOLLOWERS, ...r })}`);
  } finally {
    if (server.privateServer) await (ctx.redis as Redis).flushall();
    else await deleteByPrefix(ctx.redis as Redis, config.keyPrefix);
    await ctx.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
