/**
 * npm run profile:futures — instructions per futures order inside FCALL, counted by callgrind
 * (deterministic whatever else the box runs, unlike wall-clock throughput).
 *
 * Starts its own redis-server under `valgrind --tool=callgrind --toggle-collect=fcallCommand` (only
 * what runs inside FCALL is counted: the Lua and the commands it calls), then runs bench:futures'
 * flow: PROFILE_WARMUP resting orders (64 per call) to reach the bench's book and index sizes, then,
 * measured, PROFILE_RESTING more non-crossing limit orders and PROFILE_CROSSING ones that each fill
 * one maker, PROFILE_GROUP per createFuturesOrders call; counters zeroed and dumped around each phase.
 * Then the same phases through the floor script (lib/futures-floor.lua: only the commands an order
 * cannot do without), so the engine's count reads against what no version of it can go below.
 * Prints instructions and commands per order; the dumps stay in PROFILE_DIR for callgrind_annotate.
 *
 * Env: PROFILE_FLOOR (1; 0 skips the floor), PROFILE_WARMUP (8000), PROFILE_RESTING (3000), PROFILE_CROSSING (1500), PROFILE_GROUP (4), PROFILE_DIR (a temp dir),
 * PROFILE_REDIS_SERVER (the binary; a build with symbols gives callgrind_annotate a per-function profile).
 */
import { resolve } from 'node:path';
import type Redis from 'ioredis';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { createContext, type AppContext } from '../../src/transport/context';
import { seedMarkets } from '../../src/markets/market-seeder';
import { profileFlow, startCallgrindRedis } from './lib/callgrind';
import { envCount, envInt, runBench } from './lib/deadline';
import { FuturesFloor } from './lib/futures-floor';
import { futuresFlow } from './lib/futures-flow';

const RESTING = envCount('PROFILE_RESTING', 3000);
const CROSSING = envCount('PROFILE_CROSSING', 1500);
const GROUP = envInt('PROFILE_GROUP', 4);
// bench:futures rests 20,000 orders: past a few thousand the book's levels, the level hash and the
// accounts' indices are skiplists and hash tables; unmeasured warm-up orders get there first, so the
// counts are those of the bench's regime, not of small listpacks
const WARMUP = envCount('PROFILE_WARMUP', 8000);
// then the same phases through the floor script (lib/futures-floor.lua); PROFILE_FLOOR=0 skips them
const FLOOR = process.env.PROFILE_FLOOR !== '0';

async function main(): Promise<void> {
  const server = await startCallgrindRedis('futures-profile');
  const url = server.url;
  try {
    const config = loadConfig({
      REDIS_URL: url, JWT_SECRET: 'profile-secret-0123456789abcdef', KEY_PREFIX: 'prof', LOG_LEVEL: 'silent',
      MARKETS_FILE: resolve(__dirname, '../../config/markets.json'), REDIS_COMMAND_TIMEOUT_MS: '60000',
    });
    const ctx: AppContext = await createContext(config, createLogger('silent'));
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
    const flow = await futuresFlow(ctx, WARMUP + RESTING, CROSSING);
    const { resting, crossing } = flow;
    const redis = ctx.redis as Redis;
    let floor: FuturesFloor | null = null;
    if (FLOOR) {
      floor = new FuturesFloor(redis, '{floor}:');
      await floor.prepare(flow.accounts);
    }
    await profileFlow(server, redis, { resting, crossing, warmup: WARMUP, group: GROUP }, (p, orders) => ctx.futures.engine.queueCreate(p, orders), floor);
    console.log(`dumps: ${server.dir}`);
    await ctx.close();
  } finally {
    server.stop();
  }
}

runBench(main);
