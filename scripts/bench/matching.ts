/**
 * npm run bench:matching — the spot engine's Lua scripts, pipelined, against a no-op FCALL
 * baseline, the floor script (lib/spot-floor.lua: only the commands a spot order cannot do without)
 * and an in-memory order book (nodejs-order-book), in one run (docs/performance.md, issues 2 and 27).
 *
 * Per run, on a fresh key prefix: RESTING non-crossing limit orders build a book RESTING deep
 * (both sides, 1,000 levels each), then CROSSING limit orders each take exactly one resting order
 * (every order has the same size, so a taker with a far limit fills one maker and stops). The same
 * flow goes through a Redis Function that does nothing, with the same KEYS/ARGV (what FCALL, the network and
 * ioredis cost by themselves), through the floor script on keys of its own (what no version of the
 * engine's script can go below while it keeps the same data) and through nodejs-order-book (what
 * matching costs without Redis).
 *
 * Each run does the flow twice, on fresh prefixes: one order per script call, then BENCH_GROUP
 * orders per call as the API's group commit sends them from a busy market.
 *
 * Env: BENCH_RUNS (5), BENCH_RESTING (100000), BENCH_CROSSING (50000), BENCH_BATCH (500), BENCH_GROUP (64),
 * BENCH_IN_FLIGHT (2), BENCH_MAX_SECONDS (900), REDIS_URL (else a private redis-server),
 * BENCH_LUA_DIR (another lua/ tree, flat or in feature folders, or a checkout holding one, e.g. an older
 * commit's, to compare engine versions A/B; its placeSpotOrders must take the KEYS this SpotEngine sends).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type Redis from 'ioredis';
import { OrderBook, Side as ObSide } from 'nodejs-order-book';
import type { Pair } from '../../src/domain/market';
import { createRedis } from '../../src/platform/redis/connection';
import { buildLuaLibrary } from '../../src/platform/redis/lua-loader';
import { Scripts } from '../../src/platform/redis/scripts';
import { MAX_PLACE_BATCH, SpotEngine, type PlaceSpotInput } from '../../src/spot/spot-engine';
import { chunk, depositFlowUsers, orderFlow, toInput as toFlowInput, type FlowOrder } from './lib/spot-flow';
import { SpotFloor } from './lib/spot-floor';
import { benchContext } from './lib/bench-context';
import { startProgress, type Progress } from '../lib/progress';
import { envInt, exitAfter, runBench } from './lib/deadline';
import { runPipelined, type PipelinedRun } from './lib/pipeline';
import { clearBenchData, startBenchRedis, type BenchRedis } from './lib/redis-server';
import {
  commandStats,
  histogramPercentile,
  latencyHistogram,
  loadNoopFunction,
  resetStats,
  serverCpuSeconds,
  type CommandStat,
} from './lib/redis-info';
import { fmtNum, machineInfo, printTable, writeResults } from './lib/report';
import { median, nowMs, summarize } from './lib/stats';

const RUNS = envInt('BENCH_RUNS', 5);
const RESTING = envInt('BENCH_RESTING', 100_000);
const CROSSING = envInt('BENCH_CROSSING', 50_000);
const BATCH = envInt('BENCH_BATCH', 500);
const IN_FLIGHT = envInt('BENCH_IN_FLIGHT', 2);
const GROUP = Math.min(envInt('BENCH_GROUP', MAX_PLACE_BATCH), MAX_PLACE_BATCH);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 900);
const LUA_DIR = process.env.BENCH_LUA_DIR ? luaTree(resolve(process.env.BENCH_LUA_DIR)) : undefined;

/** The lua/ tree of `dir`: the folder itself, or its lua/ when it is a checkout's root (the loader recurses). */
function luaTree(dir: string): string {
  return existsSync(join(dir, 'lua', 'includes')) ? join(dir, 'lua') : dir;
}

const PAIR = 'BTC_USDT';
const MID = 5_000_000; // 50,000.00 USDT in ticks
const LEVELS = 1_000; // price levels per side
const LOTS = 1_000; // 0.001 BTC: above both pair minimums at every price used
const USERS = 10; // makers m0..m9, takers t0..t9: no self-trades, balances spread over hashes

const flowShape = { resting: RESTING, crossing: CROSSING, mid: MID, levels: LEVELS };
const toInput = (pair: Pair, o: FlowOrder, ts: number) => toFlowInput(pair, o, ts, LOTS, USERS);

interface PhaseResult {
  ordersPerSec: number;
  /** Batch round trip, client side, ms. */
  batchP50Ms: number;
  batchP99Ms: number;
  /** Redis-side time of one FCALL (one call places GROUP orders): mean from commandstats, p50/p99 as power-of-two bucket bounds. */
  redisMeanUs: number;
  redisP50Us: number;
  redisP99Us: number;
  /** CPU the server's main thread spent per order (INFO cpu), µs: robust to a busy shared box. */
  redisCpuUs: number;
  /** Commands the scripts issued per order (redis.call count). */
  callsPerOrder: number;
  errors: number;
}

interface RunResult {
  engineResting: PhaseResult;
  engineCrossing: PhaseResult;
  noopResting: PhaseResult;
  noopCrossing: PhaseResult;
  floorResting: PhaseResult;
  floorCrossing: PhaseResult;
  memResting: number;
  memCrossing: number;
  commandsResting: Record<string, number>;
  commandsCrossing: Record<string, number>;
  check: { trades: number; bookDepthAfterResting: number; bookDepthAfterCrossing: number };
}

async function measurePhase(
  redis: Redis,
  calls: PlaceSpotInput[][],
  queue: PipelinedQueue,
  isOk: (r: unknown) => boolean,
  progress: Progress,
): Promise<{ phase: PhaseResult; stats: Map<string, CommandStat>; run: PipelinedRun }> {
  const orders = calls.reduce((n, c) => n + c.length, 0);
  await resetStats(redis);
  const cpu0 = await serverCpuSeconds(redis);
  // pipelines of about BATCH orders, whatever the orders per call
  const perPipeline = Math.max(1, Math.round(BATCH / calls[0].length));
  const onBatch = (batch: readonly PlaceSpotInput[][]) => progress.increment(batch.reduce((n, c) => n + c.length, 0));
  const run = await runPipelined(redis, { items: calls, queue, batchSize: perPipeline, inFlight: IN_FLIGHT, isOk, onBatch });
  // what went wrong, before the run's check refuses it
  if (run.errors > 0) console.error(`${run.errors} error replies, the first: ${String(run.firstError)}`);
  const cpu1 = await serverCpuSeconds(redis);
  const stats = await commandStats(redis);
  const hist = await latencyHistogram(redis, 'fcall');
  const fcall = stats.get('fcall') ?? { calls: 0, usec: 0, usecPerCall: NaN };
  let inner = 0;
  for (const [name, s] of stats) if (isScriptCommand(name)) inner += s.calls;
  const batches = summarize(run.batchMs);
  return {
    phase: {
      ordersPerSec: (orders / run.elapsedMs) * 1000,
      batchP50Ms: batches.p50,
      batchP99Ms: batches.p99,
      redisMeanUs: fcall.usecPerCall,
      redisP50Us: hist ? histogramPercentile(hist, 50) : NaN,
      redisP99Us: hist ? histogramPercentile(hist, 99) : NaN,
      redisCpuUs: ((cpu1 - cpu0) * 1e6) / orders,
      callsPerOrder: inner / orders,
      errors: run.errors,
    },
    stats,
    run,
  };
}

/** Commands counted in commandstats that scripts issued (not the bench's own FCALL/INFO/CONFIG). */
function isScriptCommand(name: string): boolean {
  return !/^(fcall|evalsha|eval|info|config.*|script.*|function.*|zcard|get|flushall|ping|client.*)$/.test(name);
}

function perOrder(stats: Map<string, CommandStat>, orders: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, s] of stats) {
    if (!isScriptCommand(name)) continue;
    out[name] = Math.round((s.calls / orders) * 100) / 100;
  }
  return out;
}

function inMemory(flow: { resting: FlowOrder[]; crossing: FlowOrder[] }): {
  resting: number;
  crossing: number;
} {
  const ob = new OrderBook();
  const place = (o: FlowOrder, id: string) =>
    ob.limit({ id, side: o.side === 'buy' ? ObSide.BUY : ObSide.SELL, size: LOTS, price: o.priceTicks });
  let t0 = nowMs();
  flow.resting.forEach((o, i) => place(o, `r${i}`));
  const restingMs = nowMs() - t0;
  t0 = nowMs();
  let fills = 0;
  flow.crossing.forEach((o, i) => {
    fills += place(o, `c${i}`).done.length;
  });
  const crossingMs = nowMs() - t0;
  // each taker is done and takes one maker: two entries in `done`
  if (fills !== 2 * flow.crossing.length)
    throw new Error(`in-memory book: ${fills} done entries, expected ${2 * flow.crossing.length}`);
  return {
    resting: (flow.resting.length / restingMs) * 1000,
    crossing: (flow.crossing.length / crossingMs) * 1000,
  };
}

/** One run of the whole flow on a fresh key prefix, `group` orders per script call. */
async function oneRun(
  server: BenchRedis,
  flow: ReturnType<typeof orderFlow>,
  group: number,
  progress: Progress,
): Promise<RunResult> {
  const { ctx, config, prefix } = await benchContext(server.url);
  try {
    const pair = await ctx.markets.store.getPair('spot', PAIR);
    if (!pair) throw new Error(`pair ${PAIR} not seeded`);
    await depositFlowUsers(ctx, USERS);
    const ts = Date.now();
    const redis = ctx.redis as Redis;
    // The timed phases get a connection of their own (no auto-pipelining, nothing else on it) and,
    // with BENCH_LUA_DIR, the scripts of another tree under the same command names.
    const bench = createRedis({ url: server.url, name: 'bench' }) as Redis;
    // the context's command timeout (long in benches) as the exactly-once deadline: with the
    // default 1 s a pipeline on a busy box came back OPERATION_ABORTED
    const scripts = new Scripts(bench, LUA_DIR ? buildLuaLibrary(LUA_DIR) : undefined, config.redisCommandTimeoutMs);
    await scripts.preload();
    const engine = new SpotEngine(ctx.shards, scripts, config.streamMaxLen);
    const noopFn = await loadNoopFunction(redis);
    const queueNoop = (p: PipelineOf, call: PlaceSpotInput[]) => {
      const [keys, args] = engine.placeArgs(call);
      p.fcall(noopFn, keys.length, ...keys, ...args);
    };
    const queueEngine = (p: PipelineOf, call: PlaceSpotInput[]) => engine.queuePlace(p, call);
    const noopOk = (r: unknown) => r === 'OK';
    // placeSpotOrders answers one {'OK', id, status, ...} per order (see its Output block)
    const allOk = (r: unknown, status?: string) =>
      Array.isArray(r) && (r as string[][]).every((o) => o[0] === 'OK' && (!status || o[2] === status));
    const placedOk = (r: unknown) => allOk(r);
    const filledOk = (r: unknown) => allOk(r, 'filled');
    const resting = chunk(flow.resting.map((o) => toInput(pair, o, ts)), group);
    const crossing = chunk(flow.crossing.map((o) => toInput(pair, o, ts)), group);

    const floor = new SpotFloor(bench, `${prefix}:floor:`, pair);
    await floor.prepare([...new Set(flow.resting.concat(flow.crossing).map((o) => toInput(pair, o, ts).userId))]);
    const floorOk = (r: unknown) => typeof r === 'number';
    const queueFloor = (kind: 'resting' | 'crossing') => (p: PipelineOf, call: PlaceSpotInput[]) => floor.queue(p, kind, call);

    const noopResting = await measurePhase(bench, resting, queueNoop, noopOk, progress);
    const floorResting = await measurePhase(bench, resting, queueFloor('resting'), floorOk, progress);
    const engineResting = await measurePhase(bench, resting, queueEngine, placedOk, progress);
    const depth = async () =>
      (await redis.zcard(ctx.keys.book('spot', PAIR, 'bids'))) +
      (await redis.zcard(ctx.keys.book('spot', PAIR, 'asks')));
    const bookDepthAfterResting = await depth();
    const noopCrossing = await measurePhase(bench, crossing, queueNoop, noopOk, progress);
    const floorCrossing = await measurePhase(bench, crossing, queueFloor('crossing'), floorOk, progress);
    const engineCrossing = await measurePhase(bench, crossing, queueEngine, filledOk, progress);
    bench.disconnect();
    const bookDepthAfterCrossing = await depth();
    const trades = Number((await redis.get(ctx.keys.tradeIds())) ?? 0);
    const mem = inMemory(flow);
    return {
      engineResting: engineResting.phase,
      engineCrossing: engineCrossing.phase,
      noopResting: noopResting.phase,
      noopCrossing: noopCrossing.phase,
      floorResting: floorResting.phase,
      floorCrossing: floorCrossing.phase,
      memResting: mem.resting,
      memCrossing: mem.crossing,
      commandsResting: perOrder(engineResting.stats, flow.resting.length),
      commandsCrossing: perOrder(engineCrossing.stats, flow.crossing.length),
      check: { trades, bookDepthAfterResting, bookDepthAfterCrossing },
    };
  } finally {
    await clearBenchData(ctx.redis as Redis, server.privateServer, prefix);
    await ctx.close();
  }
}

type PipelinedQueue = Parameters<typeof runPipelined<PlaceSpotInput[]>>[1]['queue'];
type PipelineOf = Parameters<PipelinedQueue>[0];

function medianPhase(runs: RunResult[], pick: (r: RunResult) => PhaseResult): PhaseResult {
  const phases = runs.map(pick);
  const out = {} as Record<keyof PhaseResult, number>;
  for (const k of Object.keys(phases[0]) as (keyof PhaseResult)[]) out[k] = median(phases.map((p) => p[k]));
  return out;
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:matching');
  const server = await startBenchRedis();
  const started = new Date();
  const redisVersion = await (async () => {
    const { default: IORedis } = await import('ioredis');
    const r = new IORedis(server.url);
    const info = (await r.info('server')) as string;
    r.disconnect();
    return /redis_version:(\S+)/.exec(info)?.[1];
  })();
  console.log(
    `bench:matching — ${RUNS} runs of ${fmtNum(RESTING)} resting + ${fmtNum(CROSSING)} crossing orders on ${PAIR}, ` +
      `batches of ${BATCH}, ${IN_FLIGHT} in flight, Redis ${redisVersion} at ${server.url}${server.privateServer ? ' (private)' : ''}`,
  );
  const flow = orderFlow(flowShape);
  const modes = [...new Set([1, GROUP])];
  const runs = new Map<number, RunResult[]>(modes.map((g) => [g, []]));
  // every order goes through the no-op function, the floor and the engine, resting then crossing
  const progress = startProgress('bench:matching', RUNS * modes.length * 3 * (RESTING + CROSSING), { unit: 'orders' });
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const group of modes) {
        const r = await oneRun(server, flow, group, progress);
        runs.get(group)?.push(r);
        console.log(
          `run ${i + 1}/${RUNS}, ${group} per call: resting ${fmtNum(r.engineResting.ordersPerSec)}/s (no-op ${fmtNum(r.noopResting.ordersPerSec)}/s), ` +
            `crossing ${fmtNum(r.engineCrossing.ordersPerSec)}/s (no-op ${fmtNum(r.noopCrossing.ordersPerSec)}/s), ` +
            `floor ${fmtNum(r.floorResting.ordersPerSec)}/s / ${fmtNum(r.floorCrossing.ordersPerSec)}/s, ` +
            `Redis CPU µs/order ${fmtNum(r.engineResting.redisCpuUs, 1)} / ${fmtNum(r.engineCrossing.redisCpuUs, 1)} ` +
            `(floor ${fmtNum(r.floorResting.redisCpuUs, 1)} / ${fmtNum(r.floorCrossing.redisCpuUs, 1)}), ` +
            `in-memory ${fmtNum(r.memResting)}/s / ${fmtNum(r.memCrossing)}/s; trades ${r.check.trades}, ` +
            `book ${r.check.bookDepthAfterResting} -> ${r.check.bookDepthAfterCrossing}`,
        );
        const bad =
          r.engineResting.errors + r.engineCrossing.errors + r.noopResting.errors + r.noopCrossing.errors +
          r.floorResting.errors + r.floorCrossing.errors;
        if (bad || r.check.trades !== CROSSING || r.check.bookDepthAfterResting !== RESTING) {
          throw new Error(`run ${i + 1} did not do what it should: ${JSON.stringify(r.check)}, ${bad} error replies`);
        }
      }
    }
  } finally {
    progress.stop();
    await server.stop();
  }

  const medians = modes.map((group) => {
    const rs = runs.get(group) ?? [];
    return {
      group,
      engineResting: medianPhase(rs, (r) => r.engineResting),
      engineCrossing: medianPhase(rs, (r) => r.engineCrossing),
      noopResting: medianPhase(rs, (r) => r.noopResting),
      noopCrossing: medianPhase(rs, (r) => r.noopCrossing),
      floorResting: medianPhase(rs, (r) => r.floorResting),
      floorCrossing: medianPhase(rs, (r) => r.floorCrossing),
      // engine / floor per run (throughput of the same run), then the median
      restingVsFloor: median(rs.map((r) => r.engineResting.ordersPerSec / r.floorResting.ordersPerSec)),
      crossingVsFloor: median(rs.map((r) => r.engineCrossing.ordersPerSec / r.floorCrossing.ordersPerSec)),
      inMemoryResting: median(rs.map((r) => r.memResting)),
      inMemoryCrossing: median(rs.map((r) => r.memCrossing)),
      commandsResting: rs[0].commandsResting,
      commandsCrossing: rs[0].commandsCrossing,
    };
  });
  const row = (name: string, p: PhaseResult, base: PhaseResult | null, mem: number | null) => [
    name,
    p.ordersPerSec,
    p.batchP50Ms,
    p.batchP99Ms,
    p.redisMeanUs,
    p.redisP50Us,
    p.redisP99Us,
    p.redisCpuUs,
    p.callsPerOrder,
    base ? `${fmtNum(p.ordersPerSec / base.ordersPerSec, 3)}` : '',
    base ? `${fmtNum(p.redisCpuUs / base.redisCpuUs, 1)}x` : '',
    mem ? fmtNum(p.ordersPerSec / mem, 4) : '',
  ];
  printTable(
    `Medians of ${RUNS} runs (pipelines of about ${BATCH} orders; redis µs = one FCALL inside the server, p50/p99 as LATENCY HISTOGRAM bucket upper bounds; redis cpu µs = server main-thread CPU per order)`,
    [
      'phase',
      'orders/s',
      'pipeline p50 ms',
      'pipeline p99 ms',
      'redis µs/call mean',
      'p50≤',
      'p99≤',
      'redis cpu µs/order',
      'cmds/order',
      'thru / no-op',
      'cpu / no-op',
      'thru / in-mem',
    ],
    medians.flatMap((m) => {
      const g = `${m.group}/call`;
      return [
        row(`engine resting, ${g}`, m.engineResting, m.noopResting, m.inMemoryResting),
        row(`no-op resting, ${g}`, m.noopResting, null, null),
        row(`floor resting, ${g}`, m.floorResting, null, null),
        row(`engine crossing (1 fill), ${g}`, m.engineCrossing, m.noopCrossing, m.inMemoryCrossing),
        row(`no-op crossing, ${g}`, m.noopCrossing, null, null),
        row(`floor crossing, ${g}`, m.floorCrossing, null, null),
      ];
    }).concat([
      ['in-memory resting', medians[0].inMemoryResting, '', '', '', '', '', '', '', '', '', ''],
      ['in-memory crossing', medians[0].inMemoryCrossing, '', '', '', '', '', '', '', '', '', ''],
    ]),
  );
  const target = (v: number, t: number) => `${fmtNum(v)}/s vs target ${fmtNum(t)}/s: ${v >= t ? 'met' : 'MISSED'}`;
  for (const m of medians) {
    console.log(
      `\n${m.group} order(s) per call: resting ${target(m.engineResting.ordersPerSec, 30_000)}; ` +
        `crossing ${target(m.engineCrossing.ordersPerSec, 20_000)}`,
    );
    console.log(
      `  Redis CPU µs per order: resting ${fmtNum(m.engineResting.redisCpuUs, 1)}, crossing ${fmtNum(m.engineCrossing.redisCpuUs, 1)}; ` +
        `engine / floor (orders/s, median of the runs' ratios): resting ${fmtNum(m.restingVsFloor, 3)}, crossing ${fmtNum(m.crossingVsFloor, 3)}`,
    );
    console.log(`  commands per resting order:  ${JSON.stringify(m.commandsResting)}`);
    console.log(`  commands per crossing order: ${JSON.stringify(m.commandsCrossing)}`);
  }

  const file = writeResults('matching', {
    bench: 'matching',
    startedAt: started.toISOString(),
    machine: machineInfo(redisVersion),
    params: {
      runs: RUNS,
      resting: RESTING,
      crossing: CROSSING,
      batch: BATCH,
      group: GROUP,
      inFlight: IN_FLIGHT,
      pair: PAIR,
      levelsPerSide: LEVELS,
      lots: LOTS,
    },
    medians: medians.map((m) => ({
      ...m,
      ratios: {
        restingVsNoop: m.engineResting.ordersPerSec / m.noopResting.ordersPerSec,
        crossingVsNoop: m.engineCrossing.ordersPerSec / m.noopCrossing.ordersPerSec,
        restingVsInMemory: m.engineResting.ordersPerSec / m.inMemoryResting,
        restingVsFloor: m.restingVsFloor,
        crossingVsFloor: m.crossingVsFloor,
        crossingVsInMemory: m.engineCrossing.ordersPerSec / m.inMemoryCrossing,
      },
      targets: {
        resting: 30_000,
        crossing: 20_000,
        restingMet: m.engineResting.ordersPerSec >= 30_000,
        crossingMet: m.engineCrossing.ordersPerSec >= 20_000,
      },
    })),
    runs: Object.fromEntries(runs),
  });
  console.log(`\nwrote ${file}`);
}

runBench(main);
