import type { Pair } from '../../../src/domain/market';
import type { PlaceSpotInput } from '../../../src/spot/spot-engine';
import type { AppContext } from '../../../src/transport/context';

/** One order of a bench flow: its side and limit price in ticks, whether it rests, its number. */
export interface FlowOrder {
  side: 'buy' | 'sell';
  priceTicks: number;
  maker: boolean;
  n: number;
}

export interface FlowShape {
  resting: number;
  crossing: number;
  /** Mid price, ticks: resting orders sit just above (sells) and below (buys) it. */
  mid: number;
  /** Price levels per side the resting orders spread over. */
  levels: number;
}

/**
 * The matching benches' flow: resting orders alternate sides over `levels` prices each; crossing
 * orders alternate sides too, each with a limit past every level, so with equal sizes each fills
 * exactly one resting order at the maker's price.
 */
export function orderFlow(shape: FlowShape): { resting: FlowOrder[]; crossing: FlowOrder[] } {
  const { mid, levels } = shape;
  const resting: FlowOrder[] = [];
  for (let i = 0; i < shape.resting; i++) {
    const k = Math.floor(i / 2) % levels;
    const sell = i % 2 === 0;
    resting.push({ side: sell ? 'sell' : 'buy', priceTicks: sell ? mid + 1 + k : mid - 1 - k, maker: true, n: i });
  }
  const crossing: FlowOrder[] = [];
  for (let i = 0; i < shape.crossing; i++) {
    const buy = i % 2 === 0;
    crossing.push({ side: buy ? 'buy' : 'sell', priceTicks: buy ? mid + levels + 10 : mid - levels - 10, maker: false, n: i });
  }
  return { resting, crossing };
}

/** Makers m0.., takers t0..: no self-trades, balances spread over `users` hashes each. */
export const flowUser = (o: FlowOrder, users: number) => `${o.maker ? 'm' : 't'}${o.n % users}`;

/** A flow order as the spot engine takes it: a plain limit of `lots`. */
export function toInput(pair: Pair, o: FlowOrder, ts: number, lots: number, users: number): PlaceSpotInput {
  return {
    userId: flowUser(o, users),
    pair,
    side: o.side,
    type: 'limit',
    priceTicks: String(o.priceTicks),
    amountLots: String(lots),
    postOnly: false,
    stp: 'NONE',
    clientOrderId: null,
    timestamp: ts,
  };
}

export function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Wallets for the flow's makers and takers (m0.., t0..): ample USDT and BTC each. Their ids. */
export async function depositFlowUsers(ctx: AppContext, users: number): Promise<string[]> {
  const ids: string[] = [];
  for (let u = 0; u < users; u++) {
    for (const who of ['m', 't']) {
      ids.push(`${who}${u}`);
      await ctx.wallets.deposit(`${who}${u}`, 'USDT', 10_000_000);
      await ctx.wallets.deposit(`${who}${u}`, 'BTC', 100_000);
    }
  }
  return ids;
}

/**
 * The engine profiles' orders (profile:spot, profile:spot-lines): bench:matching's market (BTC_USDT,
 * mid 5,000,000 ticks, 1,000 levels a side, 1,000 lots an order, 10 makers and 10 takers) with its
 * users' wallets, `resting` orders (warm-up included) and `crossing` ones.
 */
export async function profileOrders(
  ctx: AppContext,
  resting: number,
  crossing: number,
): Promise<{ pair: Pair; users: string[]; resting: PlaceSpotInput[]; crossing: PlaceSpotInput[] }> {
  const USERS = 10;
  const LOTS = 1_000;
  const pair = await ctx.markets.store.getPair('spot', 'BTC_USDT');
  if (!pair) throw new Error('pair BTC_USDT not seeded');
  const users = await depositFlowUsers(ctx, USERS);
  const flow = orderFlow({ resting, crossing, mid: 5_000_000, levels: 1_000 });
  const ts = Date.now();
  return {
    pair,
    users,
    resting: flow.resting.map((o) => toInput(pair, o, ts, LOTS, USERS)),
    crossing: flow.crossing.map((o) => toInput(pair, o, ts, LOTS, USERS)),
  };
}
