/**
 * npm run bench:shards — what engine shards buy on a Redis Cluster (docs/architecture.md "Shard map",
 * docs/performance.md). The bench starts its own 3-master cluster (even slot split, so shards 0, 1
 * and 2 sit on three masters; AOF with appendfsync always, which more than one shard requires) and
 * its own single redis-server without AOF, and runs the same three markets (BTC_USDT, ETH_USDT,
 * BTC_USDT.TRC20) at once in four modes (BENCH_MODES, default all):
 *   - engine: RESTING non-crossing limit orders, then CROSSING orders that each fill one (bench:matching's
 *     flow, scripts/bench/lib/spot-flow.ts), GROUP per placeSpotOrders call through SpotEngine.queuePlace,
 *     pipelined per market; users funded on each shard directly (matching only). Layouts: one Redis, one
 *     shard (the embedded default, against bench:matching); cluster, one shard; cluster, three shards.
 *   - funded: the same flow through the spot order service (what an api request runs), users homed away
 *     from the market's shard and funded at home only, so escrow comes by real transfers (debit + outbox
 *     at home, the relay's durable credit and ack) whose Redis work counts in every master's CPU. Layouts:
 *     cluster with ENGINE_SHARDS=1 (no transfers), three shards with top-ups of the shortfall plus
 *     BENCH_HEADROOM_PERCENT, and three shards with no headroom, where every order needs a top-up.
 *   - http: the funded layouts over HTTP, BENCH_HTTP_PROCESSES api processes (ROLES=api) each loaded by
 *     its own autocannon; buys and sells within ±10.00 of the mid, so about half cross. A fixed count of
 *     requests per process, all answered inside the measured phase (every order a top-up: fewer
 *     connections and requests, BENCH_HTTP_TOP_UP_*).
 *   - limiter: the order rate limiter's Redis CPU per call against a no-op call (any round trip's
 *     floor), the layout before (expiring counters, replicated) and the shipped script replicated.
 * Measured per phase: orders/s (wall clock: on a 2-core box the client, the api processes and the
 * masters share the cores, so this measures contention) and Redis CPU µs per order from INFO cpu
 * deltas of every master: on the busiest master and over all masters together. Medians of BENCH_RUNS.
 *
 * Env: BENCH_MODES (engine,funded,http,limiter), BENCH_RUNS (3), BENCH_RESTING (10000 per market),
 * BENCH_CROSSING (5000 per market), BENCH_BATCH (500), BENCH_GROUP (64), BENCH_IN_FLIGHT (2),
 * BENCH_FUNDED_RESTING (2000 per market), BENCH_FUNDED_CROSSING (1000), BENCH_FUNDED_USERS (64 makers
 * and 64 takers per market), BENCH_FUNDED_IN_FLIGHT (32 per market), BENCH_HEADROOM_PERCENT (1000),
 * BENCH_HTTP_PROCESSES (3), BENCH_HTTP_CONNECTIONS (16 per process), BENCH_HTTP_REQUESTS (500 per process),
 * BENCH_HTTP_TOP_UP_CONNECTIONS (4), BENCH_HTTP_TOP_UP_REQUESTS (200), BENCH_LIMITER_CALLS (5000 per
 * variant and run), BENCH_LIMITER_USERS (2000), BENCH_LIMITER_IN_FLIGHT (48), BENCH_API_LOG_LEVEL
 * (silent: the api processes' log), BENCH_MAX_SECONDS (1200).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChainableCommander } from 'ioredis';
import { Cluster } from 'ioredis';
import type { Pair } from '../../src/domain/market';
import { createRedis, type RedisClient } from '../../src/platform/redis/connection';
import { startRedisCluster, type RedisClusterProcess } from '../../src/platform/redis/redis-cluster-process';
import { Scripts } from '../../src/platform/redis/scripts';
import { shardPlacements } from '../../src/platform/redis/shard-placement';
import { benchContext } from './lib/bench-context';
import { MAX_PLACE_BATCH, SpotEngine, type PlaceSpotInput } from '../../src/spot/spot-engine';
import type { AppContext } from '../../src/transport/context';
import { envInt, exitAfter, runBench } from './lib/deadline';
import { runPipelined, type PipelinedRun } from './lib/pipeline';
import { masters, measureCpu, type PhaseResult } from './lib/master-cpu';
import { startBenchRedis, type BenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, redisServerVersion, writeResults } from './lib/report';
import { chunk, orderFlow, toInput } from './lib/spot-flow';
import { median } from './lib/stats';
import { reportFailure } from './lib/child-server';
import { httpRun, serveShardApi, type HttpRunResult, type HttpShape } from './lib/shard-http-run';
import { limiterRun, type LimiterShape } from './lib/shard-limiter-run';
import { fundedRun, tradeCount, type FundedLayout, type FundedRunResult, type FundedShape } from './lib/shard-service-run';

const RUNS = envInt('BENCH_RUNS', 3);
const RESTING = envInt('BENCH_RESTING', 10_000);
const CROSSING = envInt('BENCH_CROSSING', 5_000);
const BATCH = envInt('BENCH_BATCH', 500);
const GROUP = Math.min(envInt('BENCH_GROUP', MAX_PLACE_BATCH), MAX_PLACE_BATCH);
const IN_FLIGHT = envInt('BENCH_IN_FLIGHT', 2);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 1200);
const MODES = new Set((process.env.BENCH_MODES ?? 'engine,funded,http,limiter').split(','));
const HEADROOM = envInt('BENCH_HEADROOM_PERCENT', 1000);
const FUNDED_SHAPE: FundedShape = {
  resting: envInt('BENCH_FUNDED_RESTING', 2_000),
  crossing: envInt('BENCH_FUNDED_CROSSING', 1_000),
  levels: 1_000,
  users: envInt('BENCH_FUNDED_USERS', 64),
  concurrency: envInt('BENCH_FUNDED_IN_FLIGHT', 32),
};
const HTTP_SHAPE: HttpShape = {
  processes: envInt('BENCH_HTTP_PROCESSES', 3),
  connections: envInt('BENCH_HTTP_CONNECTIONS', 16),
  requests: envInt('BENCH_HTTP_REQUESTS', 500),
  users: envInt('BENCH_FUNDED_USERS', 64),
};

/**
 * Every order a top-up over HTTP: fewer connections, so that requests do not queue for many seconds
 * behind each other's transfers (at 16 per process they waited 5–15 s), and fewer requests.
 */
const HTTP_TOP_UP_SHAPE: HttpShape = {
  ...HTTP_SHAPE,
  connections: envInt('BENCH_HTTP_TOP_UP_CONNECTIONS', 4),
  requests: envInt('BENCH_HTTP_TOP_UP_REQUESTS', 200),
};
const httpShapeOf = (layout: FundedLayout) => (layout.headroomPercent === 0 ? HTTP_TOP_UP_SHAPE : HTTP_SHAPE);

const LIMITER_SHAPE: LimiterShape = {
  calls: envInt('BENCH_LIMITER_CALLS', 5_000),
  users: envInt('BENCH_LIMITER_USERS', 2_000),
  inFlight: envInt('BENCH_LIMITER_IN_FLIGHT', 48),
  rounds: envInt('BENCH_RUNS', 3),
};

const LEVELS = 1_000;
/** Commands per master printed after each HTTP run (calls and in-command µs per order). */
const TOP_COMMANDS = 10;
const USERS = 10;
/** The three spot markets of config/markets.json; sizes above both pair minimums at every price used. */
const MARKETS = [
  { code: 'BTC_USDT', mid: 5_000_000, lots: 1_000 }, // 50,000.00, 0.001 BTC
  { code: 'ETH_USDT', mid: 300_000, lots: 1_000 }, // 3,000.00, 0.1 ETH
  { code: 'BTC_USDT.TRC20', mid: 5_000_000, lots: 1_000 },
];

interface Layout {
  name: string;
  cluster: boolean;
  engineShards: number;
  shardOf(market: number): number;
}

/** The funded and HTTP modes' layouts, all on the cluster: one shard (no transfers at all), three, three with no headroom. */
const FUNDED_LAYOUTS: FundedLayout[] = [
  { name: 'cluster, one shard', engineShards: 1, shardOf: () => 0, headroomPercent: HEADROOM },
  { name: 'cluster, three shards', engineShards: 3, shardOf: (i) => i, headroomPercent: HEADROOM },
  { name: 'cluster, three shards, every order a top-up', engineShards: 3, shardOf: (i) => i, headroomPercent: 0 },
];

const LAYOUTS: Layout[] = [
  { name: 'one Redis, one shard', cluster: false, engineShards: 1, shardOf: () => 0 },
  { name: 'cluster, one shard', cluster: true, engineShards: 3, shardOf: () => 0 },
  { name: 'cluster, three shards', cluster: true, engineShards: 3, shardOf: (i) => i },
];

interface RunResult {
  resting: PhaseResult;
  crossing: PhaseResult;
  check: { trades: number; bookDepthAfterResting: number };
}

interface MarketLoad {
  engine: SpotEngine;
  resting: PlaceSpotInput[][];
  crossing: PlaceSpotInput[][];
  bookKeys: string[];
}

/** Funds the flow's users on one shard directly (no home ledger, no transfer): the deposit script on its keys. */
async function fundOnShard(ctx: AppContext, shard: number, pair: Pair): Promise<void> {
  const keys = ctx.shards.keys(shard);
  const amounts: [string, number][] = [
    [pair.quoteCurrencyCode, 10_000_000],
    [pair.baseCurrencyCode, 10_000],
  ];
  for (const [code, whole] of amounts) {
    const currency = await ctx.markets.store.getCurrency(code);
    if (!currency) throw new Error(`currency ${code} not seeded`);
    const minor = (BigInt(whole) * 10n ** BigInt(currency.decimals)).toString();
    for (let u = 0; u < USERS; u++) {
      for (const who of ['m', 't']) {
        const user = `${who}${u}`;
        const reply = await ctx.scripts.run<string[]>('deposit', [keys.walletAvailable(user), keys.userEvents(), keys.deposits()], [code, minor, user, Date.now(), ctx.config.streamMaxLen]);
        if (reply[0] !== 'OK') throw new Error(`funding ${who}${u} ${code} on shard ${shard}: ${reply.join(' ')}`);
      }
    }
  }
}

async function measurePhase(
  bench: RedisClient,
  loads: MarketLoad[],
  pick: (l: MarketLoad) => PlaceSpotInput[][],
  isOk: (r: unknown) => boolean,
): Promise<PhaseResult> {
  const orders = loads.reduce((n, l) => n + pick(l).reduce((m, c) => m + c.length, 0), 0);
  const perPipeline = Math.max(1, Math.round(BATCH / GROUP));
  const m = await measureCpu(
    bench,
    () =>
      Promise.all(
        loads.map((l) =>
          runPipelined(bench, {
            items: pick(l),
            queue: (p: ChainableCommander, call: PlaceSpotInput[]) => l.engine.queuePlace(p, call),
            batchSize: perPipeline,
            inFlight: IN_FLIGHT,
            isOk,
          }),
        ),
      ),
    () => orders,
  );
  const bad = m.result.find((r: PipelinedRun) => r.errors > 0);
  if (bad) console.error(`  first error: ${bad.firstError}`);
  return {
    ordersPerSec: (orders / m.elapsedMs) * 1000,
    busiestCpuUs: m.busiestCpuUs,
    allCpuUs: m.allCpuUs,
    byMaster: m.byMaster,
    errors: m.result.reduce((n, r) => n + r.errors, 0),
  };
}

async function oneRun(url: string, layout: Layout): Promise<RunResult> {
  const { ctx, config } = await benchContext(url, { REDIS_CLUSTER: layout.cluster ? '1' : '0', ENGINE_SHARDS: String(layout.engineShards) });
  // the timed phases get a connection of their own, nothing else on it
  const bench = createRedis({ url, cluster: layout.cluster, name: 'bench' });
  try {
    // the exactly-once form's deadline as the context's: pipelines of three markets at once on a busy box run long
    const scripts = new Scripts(bench, undefined, config.redisCommandTimeoutMs);
    // a cluster client knows its masters and slots only once connected: preload loads and reads the clock of those
    await bench.ping();
    await scripts.preload();
    const ts = Date.now();
    const loads: MarketLoad[] = [];
    for (const [i, m] of MARKETS.entries()) {
      const seeded = await ctx.markets.store.getPair('spot', m.code);
      if (!seeded) throw new Error(`pair ${m.code} not seeded`);
      const shard = layout.shardOf(i);
      const pair: Pair = { ...seeded, engineShard: shard };
      await fundOnShard(ctx, shard, pair);
      const keys = ctx.shards.keys(shard);
      const flow = orderFlow({ resting: RESTING, crossing: CROSSING, mid: m.mid, levels: LEVELS });
      loads.push({
        engine: new SpotEngine(ctx.shards, scripts, config.streamMaxLen),
        resting: chunk(flow.resting.map((o) => toInput(pair, o, ts, m.lots, USERS)), GROUP),
        crossing: chunk(flow.crossing.map((o) => toInput(pair, o, ts, m.lots, USERS)), GROUP),
        bookKeys: [keys.book('spot', m.code, 'bids'), keys.book('spot', m.code, 'asks')],
      });
    }
    // placeSpotOrders answers one {'OK', id, status, ...} per order
    const allOk = (r: unknown, status?: string) =>
      Array.isArray(r) && (r as string[][]).every((o) => o[0] === 'OK' && (!status || o[2] === status));
    const resting = await measurePhase(bench, loads, (l) => l.resting, (r) => allOk(r));
    let bookDepthAfterResting = 0;
    for (const l of loads) for (const k of l.bookKeys) bookDepthAfterResting += await ctx.redis.zcard(k);
    const crossing = await measurePhase(bench, loads, (l) => l.crossing, (r) => allOk(r, 'filled'));
    return { resting, crossing, check: { trades: await tradeCount(ctx), bookDepthAfterResting } };
  } finally {
    // private servers: flushed whole between runs
    for (const n of masters(ctx.redis).values()) await n.flushall();
    bench.disconnect();
    await ctx.close();
  }
}

/** The newest bench:matching result on this box (bench-results/), for the one-Redis comparison. */
function latestMatching(): { file: string; restingCpuUs: number; crossingCpuUs: number } | undefined {
  const dir = resolve(process.cwd(), 'bench-results');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /^matching-.*\.json$/.test(f)).sort();
  } catch {
    return undefined;
  }
  const file = files.at(-1);
  if (!file) return undefined;
  const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    medians: { group: number; engineResting: { redisCpuUs: number }; engineCrossing: { redisCpuUs: number } }[];
  };
  const m = data.medians.find((x) => x.group === GROUP);
  return m ? { file, restingCpuUs: m.engineResting.redisCpuUs, crossingCpuUs: m.engineCrossing.redisCpuUs } : undefined;
}

function medianPhase(rs: PhaseResult[]): PhaseResult {
  const byMaster: Record<string, number> = {};
  for (const name of Object.keys(rs[0].byMaster)) byMaster[name] = median(rs.map((r) => r.byMaster[name]));
  return {
    ordersPerSec: median(rs.map((r) => r.ordersPerSec)),
    busiestCpuUs: median(rs.map((r) => r.busiestCpuUs)),
    allCpuUs: median(rs.map((r) => r.allCpuUs)),
    byMaster,
    errors: rs.reduce((n, r) => n + r.errors, 0),
  };
}

/** An HTTP run's CPU per order less what each master used idle over the same time (its cron, the cluster bus, the clients' pings). */
function netOfIdle(r: HttpRunResult): PhaseResult {
  const byMaster = Object.fromEntries(Object.entries(r.byMaster).map(([node, us]) => [node, us - (r.idlePerOrder[node] ?? 0)]));
  const perMaster = Object.values(byMaster);
  return { ordersPerSec: r.ordersPerSec, errors: r.errors, byMaster, busiestCpuUs: Math.max(...perMaster), allCpuUs: perMaster.reduce((a, b) => a + b, 0) };
}

/** The engine-path verdicts, and the same for the funded and HTTP modes: three shards against one on the cluster. */
function verdict(label: string, one: PhaseResult, three: PhaseResult): Verdict {
  const busiest = one.busiestCpuUs / three.busiestCpuUs;
  const all = three.allCpuUs / one.allCpuUs;
  const v = { label, busiestOneOverThree: busiest, busiestTargetMet: busiest >= 2.5, allThreeOverOne: all, allTargetMet: all <= 1.3 };
  console.log(
    `${label}: busiest master ${fmtNum(busiest, 2)}x lower with three shards (target ≥ 2.5: ${v.busiestTargetMet ? 'met' : 'MISSED'}); ` +
      `all masters ${fmtNum(all, 2)}x one shard's (target ≤ 1.3: ${v.allTargetMet ? 'met' : 'MISSED'})`,
  );
  return v;
}

interface Verdict {
  label: string;
  busiestOneOverThree: number;
  busiestTargetMet: boolean;
  allThreeOverOne: number;
  allTargetMet: boolean;
}

const phaseRow = (layout: string, phase: string, r: PhaseResult, extra: string | number = '') => [
  layout,
  phase,
  r.ordersPerSec,
  r.busiestCpuUs,
  r.allCpuUs,
  Object.values(r.byMaster).map((v) => fmtNum(v, 1)).join(' / '),
  extra,
];
const TABLE_HEADERS = ['layout', 'phase', 'orders/s', 'CPU µs/order, busiest master', 'CPU µs/order, all masters', 'per master', 'transfers'];

/** The engine path: the same pipelined load in the three LAYOUTS; the results and their verdicts. */
async function engineMode(clusterUrl: string, singleUrl: string) {
  const results = new Map<string, RunResult[]>(LAYOUTS.map((l) => [l.name, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const layout of LAYOUTS) {
      const r = await oneRun(layout.cluster ? clusterUrl : singleUrl, layout);
      results.get(layout.name)!.push(r);
      console.log(
        `engine run ${run}/${RUNS}, ${layout.name}: resting ${fmtNum(r.resting.ordersPerSec)}/s, busiest master ` +
          `${fmtNum(r.resting.busiestCpuUs)} µs/order, all ${fmtNum(r.resting.allCpuUs)}; crossing ${fmtNum(r.crossing.ordersPerSec)}/s, ` +
          `busiest ${fmtNum(r.crossing.busiestCpuUs)}, all ${fmtNum(r.crossing.allCpuUs)}; trades ${r.check.trades}, book ${r.check.bookDepthAfterResting}`,
      );
      const errors = r.resting.errors + r.crossing.errors;
      if (errors || r.check.trades !== CROSSING * MARKETS.length || r.check.bookDepthAfterResting !== RESTING * MARKETS.length) {
        throw new Error(`engine run ${run} (${layout.name}) did not do what it should: ${JSON.stringify(r.check)}, ${errors} error replies`);
      }
    }
  }
  const medians = LAYOUTS.map((l) => {
    const rs = results.get(l.name)!;
    return { layout: l.name, resting: medianPhase(rs.map((r) => r.resting)), crossing: medianPhase(rs.map((r) => r.crossing)) };
  });
  printTable(
    `Engine path (users funded on each shard directly, no transfers): medians of ${RUNS} runs, Redis CPU per order of all three markets`,
    TABLE_HEADERS,
    medians.flatMap((m) => [phaseRow(m.layout, 'resting', m.resting), phaseRow(m.layout, 'crossing', m.crossing)]),
  );
  const of = (name: string) => medians.find((m) => m.layout === name)!;
  const one = of('cluster, one shard');
  const three = of('cluster, three shards');
  const verdicts = (['resting', 'crossing'] as const).map((phase) => verdict(`engine ${phase}`, one[phase], three[phase]));
  const matching = latestMatching();
  const embedded = of('one Redis, one shard');
  console.log(
    `one Redis, one shard: ${fmtNum(embedded.resting.allCpuUs)} µs/resting order, ${fmtNum(embedded.crossing.allCpuUs)} µs/crossing order` +
      (matching
        ? `; bench:matching (${matching.file}, ${GROUP}/call): ${fmtNum(matching.restingCpuUs)} / ${fmtNum(matching.crossingCpuUs)}`
        : '; no bench:matching result in bench-results/ to compare with (npm run bench:matching)'),
  );
  return { medians, verdicts, matching, runs: Object.fromEntries(results) };
}

/** The service path, users funded at home only: every FUNDED_LAYOUTS layout on the cluster. */
async function fundedMode(clusterUrl: string) {
  const results = new Map<string, FundedRunResult[]>(FUNDED_LAYOUTS.map((l) => [l.name, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const layout of FUNDED_LAYOUTS) {
      const r = await fundedRun(clusterUrl, layout, MARKETS, FUNDED_SHAPE);
      results.get(layout.name)!.push(r);
      console.log(
        `funded run ${run}/${RUNS}, ${layout.name}: resting ${fmtNum(r.resting.ordersPerSec)}/s, busiest ${fmtNum(r.resting.busiestCpuUs)} µs/order, ` +
          `all ${fmtNum(r.resting.allCpuUs)}; crossing ${fmtNum(r.crossing.ordersPerSec)}/s, busiest ${fmtNum(r.crossing.busiestCpuUs)}, ` +
          `all ${fmtNum(r.crossing.allCpuUs)}; trades ${r.check.trades}, transfers ${r.check.transfers}`,
      );
      const errors = r.resting.errors + r.crossing.errors;
      if (errors || r.check.trades !== FUNDED_SHAPE.crossing * MARKETS.length) {
        throw new Error(`funded run ${run} (${layout.name}) did not do what it should: ${JSON.stringify(r.check)}, ${errors} errors`);
      }
    }
  }
  const medians = FUNDED_LAYOUTS.map((l) => {
    const rs = results.get(l.name)!;
    return {
      layout: l.name,
      resting: medianPhase(rs.map((r) => r.resting)),
      crossing: medianPhase(rs.map((r) => r.crossing)),
      transfers: median(rs.map((r) => r.check.transfers)),
    };
  });
  printTable(
    `Service path, users funded at home only (escrow by transfers, relay included): medians of ${RUNS} runs`,
    TABLE_HEADERS,
    medians.flatMap((m) => [phaseRow(m.layout, 'resting', m.resting, m.transfers), phaseRow(m.layout, 'crossing', m.crossing)]),
  );
  const [one, three, every] = medians;
  const verdicts = (['resting', 'crossing'] as const).flatMap((phase) => [
    verdict(`funded ${phase}`, one[phase], three[phase]),
    verdict(`funded ${phase}, every order a top-up`, one[phase], every[phase]),
  ]);
  return { medians, verdicts, runs: Object.fromEntries(results) };
}

/** HTTP with several api processes: every FUNDED_LAYOUTS layout on the cluster. */
async function httpMode(clusterUrl: string) {
  const results = new Map<string, HttpRunResult[]>(FUNDED_LAYOUTS.map((l) => [l.name, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const layout of FUNDED_LAYOUTS) {
      const r = await httpRun(clusterUrl, layout, MARKETS, httpShapeOf(layout), __filename);
      results.get(layout.name)!.push(r);
      console.log(
        `http run ${run}/${RUNS}, ${layout.name}: ${fmtNum(r.ordersPerSec)} orders/s, busiest ${fmtNum(r.busiestCpuUs)} µs/order, ` +
          `all ${fmtNum(r.allCpuUs)}; ${JSON.stringify(r.statuses)}, transfers ${r.transfers}, ${r.errors} errors`,
      );
      for (const [node, cmds] of Object.entries(r.commands)) {
        const top = Object.entries(cmds).slice(0, TOP_COMMANDS).map(([c, s]) => `${c} ${fmtNum(s.callsPerOrder, 2)}×/${fmtNum(s.usecPerOrder, 1)}µs`);
        console.log(`  ${node}: ${fmtNum(r.byMaster[node], 1)} µs/order (idle ${fmtNum(r.idlePerOrder[node], 1)}); ${top.join(', ')}`);
      }
      if (r.errors) throw new Error(`http run ${run} (${layout.name}): ${r.errors} errors, first ${r.firstFailure}`);
    }
  }
  const medians = FUNDED_LAYOUTS.map((l) => {
    const rs = results.get(l.name)!;
    return { layout: l.name, http: medianPhase(rs), net: medianPhase(rs.map(netOfIdle)), transfers: median(rs.map((r) => r.transfers)) };
  });
  printTable(
    `HTTP, ${HTTP_SHAPE.processes} api processes (ROLES=api), users funded at home only: medians of ${RUNS} runs ` +
      '(net: less each master\'s idle CPU over the load\'s time)',
    TABLE_HEADERS,
    medians.flatMap((m) => [phaseRow(m.layout, 'http', m.http, m.transfers), phaseRow(m.layout, 'net', m.net)]),
  );
  const [one, three, every] = medians;
  const verdicts = [
    verdict('http', one.http, three.http),
    verdict('http, every order a top-up', one.http, every.http),
    verdict('http net of idle', one.net, three.net),
    verdict('http net of idle, every order a top-up', one.net, every.net),
  ];
  return { medians, verdicts, runs: Object.fromEntries(results) };
}

/** The rate limiter's Redis cost per request, against the floor of any round trip and the layout before: on the cluster and on one server. */
async function limiterMode(clusterUrl: string, singleUrl: string) {
  const out: Record<string, Awaited<ReturnType<typeof limiterRun>>> = {};
  for (const [where, url, cluster] of [['cluster, appendfsync always', clusterUrl, true], ['one Redis, no AOF', singleUrl, false]] as const) {
    const variants = await limiterRun(url, cluster, LIMITER_SHAPE);
    const [floor, before] = [variants[0].usPerCall, variants[1].usPerCall];
    printTable(
      `Rate limiter on ${where}: ${fmtNum(LIMITER_SHAPE.calls * LIMITER_SHAPE.rounds)} calls per variant over ${fmtNum(LIMITER_SHAPE.users)} ` +
        `users, ${LIMITER_SHAPE.inFlight} in flight, variants interleaved over ${LIMITER_SHAPE.rounds} rounds (all masters)`,
      ['variant', 'CPU µs/call', '÷ no-op', '÷ before', 'AOF bytes/call'],
      variants.map((v) => [v.name, fmtNum(v.usPerCall, 1), fmtNum(v.usPerCall / floor), fmtNum(v.usPerCall / before), fmtNum(v.aofBytesPerCall, 1)]),
    );
    out[where] = variants;
  }
  return { shape: LIMITER_SHAPE, ...out };
}

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:shards');
  const started = new Date();
  console.log(
    `bench:shards (${[...MODES].join(', ')}) — ${RUNS} runs, markets ${MARKETS.map((m) => m.code).join(', ')} at once; ` +
      'a private 3-master cluster (appendfsync always, as several shards need) and a private server without AOF.\n' +
      `engine: ${fmtNum(RESTING)} resting + ${fmtNum(CROSSING)} crossing orders per market, ${GROUP} per call, pipelines of about ` +
      `${BATCH} orders, ${IN_FLIGHT} in flight per market; users funded on each shard directly (matching only).\n` +
      `funded: ${fmtNum(FUNDED_SHAPE.resting)} + ${fmtNum(FUNDED_SHAPE.crossing)} orders per market through the order service, ` +
      `${FUNDED_SHAPE.concurrency} in flight per market, ${FUNDED_SHAPE.users} makers and takers per market homed away from its shard ` +
      `and funded at home only; top-ups move the shortfall plus ${HEADROOM}% (and 0%: every order a top-up).\n` +
      `http: ${HTTP_SHAPE.processes} api processes, ${HTTP_SHAPE.connections} connections and ${HTTP_SHAPE.requests} requests each ` +
      `(every order a top-up: ${HTTP_TOP_UP_SHAPE.connections} and ${HTTP_TOP_UP_SHAPE.requests}).`,
  );
  let cluster: RedisClusterProcess | undefined;
  let single: BenchRedis | undefined;
  const out: Record<string, unknown> = {};
  try {
    // more than one engine shard starts only where each master makes a write durable (AOF with
    // appendfsync always, or a replica: src/platform/redis/shard-links.ts)
    cluster = await startRedisCluster({ masters: 3, appendOnly: true, appendfsync: 'always' });
    single = await startBenchRedis({ allowEnvUrl: false });
    const probe = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0].port }]);
    const placements = await shardPlacements(probe, 3);
    probe.disconnect();
    console.log(`shard placement: ${placements.map((p) => `shard ${p.shard} {${p.tag}} slot ${p.slot} on ${p.node}`).join('; ')}`);
    if (MODES.has('engine')) out.engine = await engineMode(cluster.url, single.url);
    if (MODES.has('funded')) out.funded = await fundedMode(cluster.url);
    if (MODES.has('http')) out.http = await httpMode(cluster.url);
    if (MODES.has('limiter')) out.limiter = await limiterMode(cluster.url, single.url);
  } finally {
    await cluster?.stop();
    await single?.stop();
  }
  const file = writeResults('shards', {
    bench: 'shards',
    startedAt: started.toISOString(),
    machine: machineInfo(redisServerVersion()),
    params: {
      runs: RUNS, modes: [...MODES], resting: RESTING, crossing: CROSSING, batch: BATCH, group: GROUP, inFlight: IN_FLIGHT,
      markets: MARKETS, levels: LEVELS, funded: FUNDED_SHAPE, headroomPercent: HEADROOM, http: HTTP_SHAPE, httpTopUp: HTTP_TOP_UP_SHAPE,
    },
    clusterAppendfsync: 'always',
    ...out,
  });
  console.log(`\nwrote ${file}`);
}

if (process.argv[2] === '--serve') serveShardApi().catch(reportFailure);
else runBench(main);
