/**
 * npm run profile:spot — instructions per spot order inside FCALL, counted by callgrind
 * (deterministic whatever else the box runs, unlike wall-clock throughput), as profile:futures
 * counts the futures engine's.
 *
 * Runs bench:matching's flow (lib/spot-flow) on a redis-server under callgrind (lib/callgrind):
 * PROFILE_WARMUP resting orders (64 per call) to reach the bench's book and index sizes, then,
 * measured, PROFILE_RESTING more non-crossing limit orders and PROFILE_CROSSING ones that each fill
 * one maker, PROFILE_GROUP per placeSpotOrders call, in the exactly-once form the API sends. Then
 * the same phases through the floor script (lib/spot-floor.lua: only the commands an order cannot do
 * without). Prints instructions and commands per order; the dumps stay in PROFILE_DIR for
 * callgrind_annotate.
 *
 * Env: PROFILE_FLOOR (1; 0 skips the floor), PROFILE_WARMUP (20000), PROFILE_RESTING (3000),
 * PROFILE_CROSSING (3000), PROFILE_GROUP (64), PROFILE_DIR (a temp dir), PROFILE_REDIS_SERVER (the
 * binary), BENCH_LUA_DIR (another lua/ tree, as bench:matching takes it: an A/B of two engines).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type Redis from 'ioredis';
import { buildLuaLibrary } from '../../src/platform/redis/lua-loader';
import { Scripts } from '../../src/platform/redis/scripts';
import { SpotEngine } from '../../src/spot/spot-engine';
import { benchContext } from './lib/bench-context';
import { profileFlow, startCallgrindRedis } from './lib/callgrind';
import { envCount, envInt, runBench } from './lib/deadline';
import { SpotFloor } from './lib/spot-floor';
import { profileOrders } from './lib/spot-flow';

const RESTING = envCount('PROFILE_RESTING', 3000);
const CROSSING = envCount('PROFILE_CROSSING', 3000);
const GROUP = envInt('PROFILE_GROUP', 64);
// past a few thousand orders the book, its levels and the users' indices are skiplists and hash
// tables, as in bench:matching's 100,000-deep book: unmeasured warm-up orders get there first
const WARMUP = envCount('PROFILE_WARMUP', 20_000);
const FLOOR = process.env.PROFILE_FLOOR !== '0';
const LUA_DIR = process.env.BENCH_LUA_DIR ? resolve(process.env.BENCH_LUA_DIR) : undefined;

async function main(): Promise<void> {
  const server = await startCallgrindRedis('spot-profile');
  try {
    const { ctx, config } = await benchContext(server.url);
    const { pair, users, resting, crossing } = await profileOrders(ctx, WARMUP + RESTING, CROSSING);
    const redis = ctx.redis as Redis;
    const tree = LUA_DIR && (existsSync(join(LUA_DIR, 'lua', 'includes')) ? join(LUA_DIR, 'lua') : LUA_DIR);
    const scripts = new Scripts(redis, tree ? buildLuaLibrary(tree) : undefined, config.redisCommandTimeoutMs);
    await scripts.preload();
    const engine = new SpotEngine(ctx.shards, scripts, config.streamMaxLen);
    let floor: SpotFloor | null = null;
    if (FLOOR) {
      floor = new SpotFloor(redis, '{floor}:', pair);
      await floor.prepare(users);
    }
    // pipelines of about 320 orders: under callgrind on a busy box 50 calls of 64 outlast the 60 s command timeout
    await profileFlow(server, redis, { resting, crossing, warmup: WARMUP, group: GROUP }, (p, orders) => engine.queuePlace(p, orders),
      floor, (group) => Math.max(1, Math.round(320 / group)));
    console.log(`dumps: ${server.dir}`);
    await ctx.close();
  } finally {
    server.stop();
  }
}

runBench(main);
