/**
 * npm run profile:futures-lines — where a futures order's Lua bytecode goes, line by line: the VM
 * instructions of createFuturesOrders, sampled by a count hook every PROFILE_EVERY instructions
 * (deterministic: the same flow samples the same lines, whatever else the box runs).
 *
 * Needs a redis-server whose functions can reach `debug` (stock Redis removes it once its error
 * handler is made): build one from the Redis sources with the line `"debug = nil\n"` of
 * src/function_lua.c emptied, and pass it as PROFILE_REDIS_SERVER (docs/performance.md, "Profiling").
 * A C function called from Lua (redis.call, string.format, cjson.encode) counts as one instruction:
 * read the figures beside profile:futures' callgrind counts, which weigh the C side.
 *
 * Runs bench:futures' flow: BENCH-sized resting orders (PROFILE_RESTING, 20000) then crossing ones
 * (PROFILE_CROSSING, 10000), PROFILE_GROUP (4) per createFuturesOrders call, each phase sampled on
 * its own; prints per phase the top lines (self) and the top functions (inclusive: a sample counts
 * once for every function on its stack), with the include file and line they sit at.
 *
 * Env: PROFILE_REDIS_SERVER (required), PROFILE_EVERY (97), PROFILE_TOP (40), PROFILE_RESTING,
 * PROFILE_CROSSING, PROFILE_GROUP.
 */
import { resolve } from 'node:path';
import Redis from 'ioredis';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext } from '../../src/transport/context';
import type { CreateFuturesInput } from '../../src/futures/futures-engine';
import { seedMarkets } from '../../src/markets/market-seeder';
import { envInt, runBench } from './lib/deadline';
import { placeAll } from './lib/callgrind';
import { futuresFlow } from './lib/futures-flow';
import { lineSampler } from './lib/lua-lines';
import { startBenchRedis } from './lib/redis-server';

const RESTING = envInt('PROFILE_RESTING', 20_000);
const CROSSING = envInt('PROFILE_CROSSING', 10_000);
const GROUP = envInt('PROFILE_GROUP', 4);
const EVERY = envInt('PROFILE_EVERY', 97);
const TOP = envInt('PROFILE_TOP', 40);
const SCRIPT = 'createFuturesOrders';

async function main(): Promise<void> {
  const server = process.env.PROFILE_REDIS_SERVER;
  if (!server) throw new Error('PROFILE_REDIS_SERVER: a redis-server whose functions keep `debug` (header)');
  const bench = await startBenchRedis({ binary: server, allowEnvUrl: false });
  const url = bench.url;
  try {
    const config = loadConfig({
      REDIS_URL: url, JWT_SECRET: 'profile-secret-0123456789abcdef', KEY_PREFIX: 'prof', LOG_LEVEL: 'silent',
      MARKETS_FILE: resolve(__dirname, '../../config/markets.json'), REDIS_COMMAND_TIMEOUT_MS: '60000',
    });
    const ctx = await createContext(config, createLogger('silent'));
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    const sample = await lineSampler(ctx.redis as Redis, { script: SCRIPT, every: EVERY, top: TOP });
    const { resting, crossing } = await futuresFlow(ctx, RESTING, CROSSING);
    const phase = (name: string, items: CreateFuturesInput[]) =>
      sample(name, items.length, GROUP, () => placeAll(ctx.redis as Redis, items, GROUP, (p, orders) => ctx.futures.engine.queueCreate(p, orders)));
    await phase('resting', resting);
    await phase('crossing', crossing);
    await ctx.close();
  } finally {
    await bench.stop();
  }
}

runBench(main);
