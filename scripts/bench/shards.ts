/**
 * npm run bench:shards — what engine shards buy on a Redis Cluster (docs/architecture.md "Shard map",
 * docs/performance.md). The bench starts its own 3-master cluster (even slot split, so shards 0, 1
 * and 2 sit on three masters) and its own single redis-server, both without AOF like
 * bench:matching's, and runs the same order load in three layouts:
 *   - one Redis, one shard: the embedded default (three markets on shard 0 of one server);
 *   - cluster, one shard: three markets on shard 0, so on one master;
 *   - cluster, three shards: the three markets on shards 0, 1 and 2.
 * The load, per market and at once on all three (BTC_USDT, ETH_USDT, BTC_USDT.TRC20): RESTING
 * non-crossing limit orders, then CROSSING orders that each fill one of them (bench:matching's flow,
 * scripts/bench/lib/spot-flow.ts), GROUP orders per placeSpotOrders call through the Spot engine
 * wrapper (SpotEngine.queuePlace), pipelined per market. Measured per phase: orders/s (wall clock:
 * on a 2-core box the one client process and the masters share the cores, so this measures
 * contention) and Redis CPU µs per order from INFO cpu deltas of every master: on the busiest
 * master and over all masters together. Medians of BENCH_RUNS runs.
 *
 * Users are funded on each shard directly (the deposit script on that shard's keys): this measures
 * matching, not the transfers that move a user's money from their home shard to a market's.
 *
 * Env: BENCH_RUNS (3), BENCH_RESTING (20000 per market), BENCH_CROSSING (10000 per market),
 * BENCH_BATCH (500), BENCH_GROUP (64), BENCH_IN_FLIGHT (2), BENCH_MAX_SECONDS (1200).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ChainableCommander } from 'ioredis';
import type Redis from 'ioredis';
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
import { serverCpuSeconds } from './lib/redis-info';
import { startBenchRedis, type BenchRedis } from './lib/redis-server';
import { fmtNum, machineInfo, printTable, redisServerVersion, writeResults } from './lib/report';
import { chunk, orderFlow, toInput } from './lib/spot-flow';
import { median } from './lib/stats';

const RUNS = envInt('BENCH_RUNS', 3);
const RESTING = envInt('BENCH_RESTING', 20_000);
const CROSSING = envInt('BENCH_CROSSING', 10_000);
const BATCH = envInt('BENCH_BATCH', 500);
const GROUP = Math.min(envInt('BENCH_GROUP', MAX_PLACE_BATCH), MAX_PLACE_BATCH);
const IN_FLIGHT = envInt('BENCH_IN_FLIGHT', 2);
const MAX_SECONDS = envInt('BENCH_MAX_SECONDS', 1200);

const LEVELS = 1_000;
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

const LAYOUTS: Layout[] = [
  { name: 'one Redis, one shard', cluster: false, engineShards: 1, shardOf: () => 0 },
  { name: 'cluster, one shard', cluster: true, engineShards: 3, shardOf: () => 0 },
  { name: 'cluster, three shards', cluster: true, engineShards: 3, shardOf: (i) => i },
];

interface PhaseResult {
  ordersPerSec: number;
  /** Redis main-thread CPU per order (all markets' orders), µs, on the master that used the most. */
  busiestCpuUs: number;
  /** The same summed over every master. */
  allCpuUs: number;
  /** Per master, in `host:port` order. */
  byMaster: Record<string, number>;
  errors: number;
}

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

/** Every server that runs scripts: a cluster's masters, keyed `host:port`, or the one server. */
function masters(client: RedisClient): Map<string, Redis> {
  if (!(client instanceof Cluster)) return new Map([[`${client.options.host}:${client.options.port}`, client]]);
  return new Map(client.nodes('master').map((n) => [`${n.options.host}:${n.options.port}`, n]));
}

async function cpuByMaster(nodes: Map<string, Redis>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [name, n] of nodes) out.set(name, await serverCpuSeconds(n));
  return out;
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
  const nodes = masters(bench);
  const orders = loads.reduce((n, l) => n + pick(l).reduce((m, c) => m + c.length, 0), 0);
  const before = await cpuByMaster(nodes);
  const t0 = Date.now();
  const perPipeline = Math.max(1, Math.round(BATCH / GROUP));
  const runs: PipelinedRun[] = await Promise.all(
    loads.map((l) =>
      runPipelined(bench, {
        items: pick(l),
        queue: (p: ChainableCommander, call: PlaceSpotInput[]) => l.engine.queuePlace(p, call),
        batchSize: perPipeline,
        inFlight: IN_FLIGHT,
        isOk,
      }),
    ),
  );
  const elapsedMs = Date.now() - t0;
  const after = await cpuByMaster(nodes);
  const byMaster: Record<string, number> = {};
  for (const [name, cpu] of after) byMaster[name] = ((cpu - (before.get(name) ?? cpu)) * 1e6) / orders;
  const perMaster = Object.values(byMaster);
  const bad = runs.find((r) => r.errors > 0);
  if (bad) console.error(`  first error: ${bad.firstError}`);
  return {
    ordersPerSec: (orders / elapsedMs) * 1000,
    busiestCpuUs: Math.max(...perMaster),
    allCpuUs: perMaster.reduce((a, b) => a + b, 0),
    byMaster,
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

async function oneRun(url: string, layout: Layout): Promise<RunResult> {
  const { ctx, config } = await benchContext(url, { REDIS_CLUSTER: layout.cluster ? '1' : '0', ENGINE_SHARDS: String(layout.engineShards) });
  // the timed phases get a connection of their own, nothing else on it
  const bench = createRedis({ url, cluster: layout.cluster, name: 'bench' });
  try {
    // the exactly-once form's deadline as the context's: pipelines of three markets at once on a busy box run long
    const scripts = new Scripts(bench, undefined, config.redisCommandTimeoutMs);
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
    const shards = [...new Set(MARKETS.map((_, i) => layout.shardOf(i)))];
    let trades = 0;
    for (const s of shards) trades += Number((await ctx.redis.get(ctx.shards.keys(s).tradeIds())) ?? 0);
    return { resting, crossing, check: { trades, bookDepthAfterResting } };
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

async function main(): Promise<void> {
  exitAfter(MAX_SECONDS, 'bench:shards');
  const started = new Date();
  console.log(
    `bench:shards — ${RUNS} runs of ${fmtNum(RESTING)} resting + ${fmtNum(CROSSING)} crossing orders on each of ` +
      `${MARKETS.map((m) => m.code).join(', ')} at once, ${GROUP} per call, pipelines of about ${BATCH} orders, ` +
      `${IN_FLIGHT} in flight per market; a private 3-master cluster and a private server, no AOF.\n` +
      'Users are funded on each shard directly (deposit on that shard): the figures are matching only, ' +
      'without the transfers that bring a user\'s money from their home shard (not measured here).',
  );
  let cluster: RedisClusterProcess | undefined;
  let single: BenchRedis | undefined;
  const results = new Map<string, RunResult[]>(LAYOUTS.map((l) => [l.name, []]));
  try {
    // more than one engine shard starts only where each master makes a write durable (AOF with
    // appendfsync always, or a replica: src/platform/redis/shard-links.ts)
    cluster = await startRedisCluster({ masters: 3, appendOnly: true, appendfsync: 'always' });
    single = await startBenchRedis({ allowEnvUrl: false });
    const probe = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0].port }]);
    const placements = await shardPlacements(probe, 3);
    probe.disconnect();
    console.log(`shard placement: ${placements.map((p) => `shard ${p.shard} {${p.tag}} slot ${p.slot} on ${p.node}`).join('; ')}`);
    for (let run = 1; run <= RUNS; run++) {
      for (const layout of LAYOUTS) {
        const r = await oneRun(layout.cluster ? cluster.url : single.url, layout);
        results.get(layout.name)!.push(r);
        console.log(
          `run ${run}/${RUNS}, ${layout.name}: resting ${fmtNum(r.resting.ordersPerSec)}/s, busiest master ` +
            `${fmtNum(r.resting.busiestCpuUs)} µs/order, all ${fmtNum(r.resting.allCpuUs)}; crossing ${fmtNum(r.crossing.ordersPerSec)}/s, ` +
            `busiest ${fmtNum(r.crossing.busiestCpuUs)}, all ${fmtNum(r.crossing.allCpuUs)}; trades ${r.check.trades}, book ${r.check.bookDepthAfterResting}`,
        );
        const errors = r.resting.errors + r.crossing.errors;
        if (errors || r.check.trades !== CROSSING * MARKETS.length || r.check.bookDepthAfterResting !== RESTING * MARKETS.length) {
          throw new Error(`run ${run} (${layout.name}) did not do what it should: ${JSON.stringify(r.check)}, ${errors} error replies`);
        }
      }
    }
  } finally {
    await cluster?.stop();
    await single?.stop();
  }

  const medians = LAYOUTS.map((l) => {
    const rs = results.get(l.name)!;
    return { layout: l.name, resting: medianPhase(rs.map((r) => r.resting)), crossing: medianPhase(rs.map((r) => r.crossing)) };
  });
  const of = (name: string) => medians.find((m) => m.layout === name)!;
  const rows = medians.flatMap((m) =>
    (['resting', 'crossing'] as const).map((phase) => [
      m.layout,
      phase,
      m[phase].ordersPerSec,
      m[phase].busiestCpuUs,
      m[phase].allCpuUs,
      Object.values(m[phase].byMaster).map((v) => fmtNum(v, 1)).join(' / '),
    ]),
  );
  printTable(
    `Medians of ${RUNS} runs (Redis CPU = main-thread user+sys from INFO cpu, per order of all three markets)`,
    ['layout', 'phase', 'orders/s', 'CPU µs/order, busiest master', 'CPU µs/order, all masters', 'per master'],
    rows,
  );
  const one = of('cluster, one shard');
  const three = of('cluster, three shards');
  const verdicts = (['resting', 'crossing'] as const).map((phase) => {
    const busiest = one[phase].busiestCpuUs / three[phase].busiestCpuUs;
    const all = three[phase].allCpuUs / one[phase].allCpuUs;
    return {
      phase,
      busiestOneOverThree: busiest,
      busiestTargetMet: busiest >= 2.5,
      allThreeOverOne: all,
      allTargetMet: all <= 1.3,
    };
  });
  for (const v of verdicts) {
    console.log(
      `${v.phase}: busiest master ${fmtNum(v.busiestOneOverThree, 2)}x lower with three shards (target ≥ 2.5: ` +
        `${v.busiestTargetMet ? 'met' : 'MISSED'}); all masters ${fmtNum(v.allThreeOverOne, 2)}x one shard's (target ≤ 1.3: ` +
        `${v.allTargetMet ? 'met' : 'MISSED'}; no transfers included)`,
    );
  }
  const matching = latestMatching();
  const embedded = of('one Redis, one shard');
  console.log(
    `one Redis, one shard: ${fmtNum(embedded.resting.allCpuUs)} µs/resting order, ${fmtNum(embedded.crossing.allCpuUs)} µs/crossing order` +
      (matching
        ? `; bench:matching (${matching.file}, ${GROUP}/call): ${fmtNum(matching.restingCpuUs)} / ${fmtNum(matching.crossingCpuUs)}`
        : '; no bench:matching result in bench-results/ to compare with (npm run bench:matching)'),
  );
  const file = writeResults('shards', {
    bench: 'shards',
    startedAt: started.toISOString(),
    machine: machineInfo(redisServerVersion()),
    params: { runs: RUNS, resting: RESTING, crossing: CROSSING, batch: BATCH, group: GROUP, inFlight: IN_FLIGHT, markets: MARKETS, levels: LEVELS },
    fundedOnEachShard: true,
    medians,
    verdicts,
    matching,
    runs: Object.fromEntries(results),
  });
  console.log(`\nwrote ${file}`);
}

runBench(main);
