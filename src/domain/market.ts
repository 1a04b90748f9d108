/** The two kinds of market; every pair, book and stream belongs to one. */
export type MarketKind = 'spot' | 'futures';

export interface Currency {
  code: string;
  name: string;
  decimals: number;
}

export interface Pair {
  id: number;
  kind: MarketKind;
  code: string;
  baseCurrencyCode: string;
  quoteCurrencyCode: string;
  digitsPrice: number;
  digitsAmount: number;
  minBaseAmount: number;
  minQuoteAmount: number;
  makerFee: number;
  takerFee: number;
  isActive: boolean;
  /** Decimals of the base and quote currencies, copied in when the pair is created. */
  baseDecimals: number;
  quoteDecimals: number;
  // futures only
  contractValue?: number;
  lotSize?: number;
  maxLeverage?: number;
  maintenanceMarginRate?: number;
  /** The engine shard that runs the market, fixed at creation; absent on pairs from before shards (0). */
  engineShard?: number;
}

/** The engine shard of a market: where its book, orders, streams and settlement live. */
export const shardOfPair = (p: Pick<Pair, 'engineShard'>): number => p.engineShard ?? 0;

/** Currency codes are opaque (order-book rule 8, docs/api-contract.md#order-book-rules); this only keeps them safe inside key names. */
export const CURRENCY_CODE = /^[A-Za-z0-9][A-Za-z0-9.-]{0,31}$/;

export const pairCode = (base: string, quote: string) => `${base}_${quote}`;

/** Splits BASE_QUOTE on `_` only: currency codes may hold dots but never an underscore. */
export function splitPairCode(code: string): [string, string] | null {
  const parts = code.split('_');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  return [parts[0], parts[1]];
}

/**
 * Integer scales between book units and currency minor units. A trade of `lots` at `ticks` moves
 * ticks × lots × quoteScale quote minor units and lots × baseScale base minor units, exactly:
 * the pair is refused unless the currencies carry at least as many decimals as the book needs.
 */
export function scales(p: Pair): { quoteScale: number; baseScale: number } {
  return {
    quoteScale: 10 ** (p.quoteDecimals - p.digitsPrice - p.digitsAmount),
    baseScale: 10 ** (p.baseDecimals - p.digitsAmount),
  };
}
