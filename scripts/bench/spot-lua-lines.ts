/**
 * npm run profile:spot-lines — where a spot order's Lua bytecode goes, line by line: the VM
 * instructions of placeSpotOrders sampled by a count hook (lib/lua-lines), as profile:futures-lines
 * samples createFuturesOrders. Needs a redis-server whose functions keep `debug` (that script's
 * header), as PROFILE_REDIS_SERVER. A C function called from Lua counts as one instruction: read the
 * figures beside profile:spot's callgrind counts.
 *
 * Runs profile:spot's flow (bench:matching's, lib/spot-flow): PROFILE_WARMUP resting orders, then
 * PROFILE_RESTING resting and PROFILE_CROSSING crossing ones, PROFILE_GROUP per call, each phase
 * sampled on its own.
 *
 * Env: PROFILE_REDIS_SERVER (required), PROFILE_EVERY (97), PROFILE_TOP (40), PROFILE_WARMUP (4000),
 * PROFILE_RESTING (1920), PROFILE_CROSSING (1920), PROFILE_GROUP (64).
 */
import type Redis from 'ioredis';
import { Scripts } from '../../src/platform/redis/scripts';
import { SpotEngine, type PlaceSpotInput } from '../../src/spot/spot-engine';
import { benchContext } from './lib/bench-context';
import { placeAll } from './lib/callgrind';
import { envCount, envInt, runBench } from './lib/deadline';
import { lineSampler } from './lib/lua-lines';
import { startBenchRedis } from './lib/redis-server';
import { profileOrders } from './lib/spot-flow';

const WARMUP = envCount('PROFILE_WARMUP', 4000);
const RESTING = envCount('PROFILE_RESTING', 1920);
const CROSSING = envCount('PROFILE_CROSSING', 1920);
const GROUP = envInt('PROFILE_GROUP', 64);
const EVERY = envInt('PROFILE_EVERY', 97);
const TOP = envInt('PROFILE_TOP', 40);

async function main(): Promise<void> {
  const server = process.env.PROFILE_REDIS_SERVER;
  if (!server) throw new Error('PROFILE_REDIS_SERVER: a redis-server whose functions keep `debug` (profile:futures-lines)');
  const bench = await startBenchRedis({ binary: server, allowEnvUrl: false });
  try {
    const { ctx, config } = await benchContext(bench.url);
    const { resting, crossing } = await profileOrders(ctx, WARMUP + RESTING, CROSSING);
    const redis = ctx.redis as Redis;
    const scripts = new Scripts(redis, undefined, config.redisCommandTimeoutMs);
    await scripts.preload();
    const engine = new SpotEngine(ctx.shards, scripts, config.streamMaxLen);
    const sample = await lineSampler(redis, { script: 'placeSpotOrders', every: EVERY, top: TOP });
    const place = (items: PlaceSpotInput[]) => () => placeAll(redis, items, GROUP, (p, orders) => engine.queuePlace(p, orders));
    await placeAll(redis, resting.slice(0, WARMUP), 64, (p, orders) => engine.queuePlace(p, orders));
    await sample('resting', RESTING, GROUP, place(resting.slice(WARMUP)));
    await sample('crossing', CROSSING, GROUP, place(crossing));
    await ctx.close();
  } finally {
    await bench.stop();
  }
}

runBench(main);
