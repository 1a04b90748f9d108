import { rmSync } from 'node:fs';
import type { Pair } from '../../../src/domain/market';
import { shardIdBase } from '../../../src/domain/shard-ids';
import type { PlaceSpotRequest } from '../../../src/spot/spot-order.service';
import type { AppContext } from '../../../src/transport/context';
import { awayUsers } from './away-users';
import { benchContext } from './bench-context';
import { masters, measureCpu, type PhaseResult } from './master-cpu';
import { serviceLoad, type ServiceLoadResult } from './service-load';
import { marketsFileWithShards } from './shard-markets-file';
import { orderFlow, type FlowOrder } from './spot-flow';

export interface BenchMarket {
  code: string;
  mid: number;
  lots: number;
}

/** Where the markets sit and how much a top-up moves beyond the shortfall. */
export interface FundedLayout {
  name: string;
  engineShards: number;
  shardOf(market: number): number;
  /** ESCROW_HEADROOM_PERCENT: 0 makes every order on an away shard need a top-up of its own. */
  headroomPercent: number;
}

export interface FundedShape {
  resting: number;
  crossing: number;
  levels: number;
  /** Makers and takers per market, each homed away from the market's shard. */
  users: number;
  /** Requests in flight per market. */
  concurrency: number;
}

export interface FundedRunResult {
  resting: PhaseResult;
  crossing: PhaseResult;
  check: { trades: number; transfers: number };
}

/** The three markets' codes → shard, for the markets file. */
export function shardMap(markets: BenchMarket[], layout: { shardOf(i: number): number }): Record<string, number> {
  return Object.fromEntries(markets.map((m, i) => [m.code, layout.shardOf(i)]));
}

/** Each market's makers and takers, homed away from its shard and funded at home only. */
export async function fundedUsers(ctx: AppContext, markets: BenchMarket[], users: number): Promise<{ pair: Pair; makers: string[]; takers: string[] }[]> {
  const out = [];
  for (const [i, m] of markets.entries()) {
    const pair = await ctx.markets.store.getPair('spot', m.code);
    if (!pair) throw new Error(`pair ${m.code} not seeded`);
    const funds: [string, number][] = [
      [pair.quoteCurrencyCode, 10_000_000],
      [pair.baseCurrencyCode, 10_000],
    ];
    const shard = pair.engineShard ?? 0;
    out.push({ pair, makers: await awayUsers(ctx, `m${i}-`, shard, users, funds), takers: await awayUsers(ctx, `t${i}-`, shard, users, funds) });
  }
  return out;
}

/** A flow order as an api request body: a plain limit in the pair's decimal units. */
export function toRequest(pair: Pair, o: FlowOrder, lots: number): PlaceSpotRequest {
  return {
    currencyPairCode: pair.code,
    side: o.side,
    type: 'limit',
    price: o.priceTicks / 10 ** pair.digitsPrice,
    amount: lots / 10 ** pair.digitsAmount,
  };
}

/** Trades on every shard: each shard's id counter counts up from its own base (src/domain/shard-ids.ts). */
export async function tradeCount(ctx: AppContext): Promise<number> {
  let n = 0;
  for (let s = 0; s < ctx.shards.count; s++) {
    const last = await ctx.redis.get(ctx.shards.keys(s).tradeIds());
    if (last !== null) n += Number(last) - shardIdBase(s);
  }
  return n;
}

/** Transfer records on every shard (home → escrow top-ups and any sweeps back), counted by SCAN on each master. */
export async function transferCount(ctx: AppContext): Promise<number> {
  let n = 0;
  for (const node of masters(ctx.redis).values()) {
    for (let s = 0; s < ctx.shards.count; s++) {
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', ctx.shards.keys(s).transfer('*'), 'COUNT', 1000);
        cursor = next;
        n += found.length;
      } while (cursor !== '0');
    }
  }
  return n;
}

/**
 * The engine bench's flow through the spot order service (what an api request runs): users funded at
 * home only, so each order on an away shard takes its escrow from a top-up (a transfer: debit +
 * outbox at home, the relay's durable credit on the market's shard), the relay's Redis work
 * counted in every master's CPU.
 */
export async function fundedRun(url: string, layout: FundedLayout, markets: BenchMarket[], shape: FundedShape): Promise<FundedRunResult> {
  const marketsFile = marketsFileWithShards(shardMap(markets, layout));
  const { ctx } = await benchContext(url, {
    REDIS_CLUSTER: '1',
    ENGINE_SHARDS: String(layout.engineShards),
    ESCROW_HEADROOM_PERCENT: String(layout.headroomPercent),
    MARKETS_FILE: marketsFile,
  }).finally(() => rmSync(marketsFile, { force: true }));
  try {
    const funded = await fundedUsers(ctx, markets, shape.users);
    const flows = markets.map((m, i) => {
      const { pair, makers, takers } = funded[i];
      const flow = orderFlow({ resting: shape.resting, crossing: shape.crossing, mid: m.mid, levels: shape.levels });
      const as = (os: FlowOrder[]) => os.map((o) => ({ userId: (o.maker ? makers : takers)[o.n % shape.users], req: toRequest(pair, o, m.lots) }));
      return { resting: as(flow.resting), crossing: as(flow.crossing) };
    });
    const phase = async (pick: (f: (typeof flows)[number]) => { userId: string; req: PlaceSpotRequest }[]): Promise<PhaseResult> => {
      const m = await measureCpu(
        ctx.redis,
        () => Promise.all(flows.map((f) => serviceLoad(ctx.spot.orders, pick(f), shape.concurrency))),
        (rs: ServiceLoadResult[]) => rs.reduce((n, r) => n + r.ok, 0),
      );
      const failed = m.result.find((r) => r.errors > 0);
      if (failed) console.error(`  first error: ${failed.firstError}`);
      const ok = m.result.reduce((n, r) => n + r.ok, 0);
      return { ordersPerSec: (ok / m.elapsedMs) * 1000, busiestCpuUs: m.busiestCpuUs, allCpuUs: m.allCpuUs, byMaster: m.byMaster, errors: m.result.reduce((n, r) => n + r.errors, 0) };
    };
    const resting = await phase((f) => f.resting);
    const crossing = await phase((f) => f.crossing);
    return { resting, crossing, check: { trades: await tradeCount(ctx), transfers: await transferCount(ctx) } };
  } finally {
    for (const n of masters(ctx.redis).values()) await n.flushall();
    await ctx.close();
  }
}
