import type { Pair } from '../../../src/domain/market';
import type { PlaceSpotInput } from '../../../src/spot/spot-engine';

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
