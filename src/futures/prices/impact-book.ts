import { fromMinor } from '../../domain/decimal';
import { impactPrice } from '../../domain/futures-prices';
import type { MarketKind, Pair } from '../../domain/market';
import type { BookReader } from '../../market-data';

/** Impact margin notional: 200 units of the quote currency per the initial margin rate at max leverage. */
const IMPACT_MARGIN = 200;
/**
 * Levels read per side when walking a book for the impact notional: a first read this shallow
 * (most books fill it within a few levels), the deep one only for a side that needs it. The mark
 * tick walks two books a second per market, so the shallow read keeps it off the engine's core.
 */
const FIRST_DEPTH = 50;
const IMPACT_DEPTH = 1000;

export interface ImpactPrices {
  /** average price of selling the impact notional into the bids, units; null when they cannot take it */
  bid: number | null;
  /** average price of buying the impact notional from the asks, units; null when they cannot fill it */
  ask: number | null;
}

/**
 * Impact prices of a book (reference section 3): the average fill of the impact notional walked
 * through each side. Every book-driven price of a futures market reads depth through here (premium
 * samples, the mark's basis, the own spot market as an index source), so a price moves only as far
 * as resting size that others could trade against moves it: thin quotes count as absent.
 */
export class ImpactBook {
  constructor(private readonly books: BookReader) {}

  /** Impact notional of a futures pair, quote units: 200 / IMR at max leverage (20,000 USDT at 100x). */
  static notional(futuresPair: Pair): number {
    return IMPACT_MARGIN * (futuresPair.maxLeverage ?? 1);
  }

  /** Impact bid and ask of `book`'s `kind` book for `notional` quote units. */
  async prices(kind: MarketKind, book: Pair, notional: number): Promise<ImpactPrices> {
    const units = (side: [string, string][]): [number, number][] =>
      side.map(([p, q]) => [fromMinor(p, book.digitsPrice), fromMinor(q, book.digitsAmount)]);
    const cv = kind === 'futures' ? (book.contractValue ?? 1) : 1;
    let out: ImpactPrices = { bid: null, ask: null };
    for (const depth of [FIRST_DEPTH, IMPACT_DEPTH]) {
      const snap = await this.books.snapshot(kind, book.code, depth);
      out = { bid: impactPrice(units(snap.bids), notional, cv), ask: impactPrice(units(snap.asks), notional, cv) };
      // done when each side filled the notional or was read to its end
      if ((out.bid !== null || snap.bids.length < depth) && (out.ask !== null || snap.asks.length < depth)) break;
    }
    return out;
  }

  /**
   * The impact mid (mean of impact bid and ask) in ticks of `digitsPrice` decimals, rounded to the
   * nearest; null unless both sides fill the notional.
   */
  async midTicks(kind: MarketKind, book: Pair, notional: number, digitsPrice: number): Promise<bigint | null> {
    const { bid, ask } = await this.prices(kind, book, notional);
    if (bid === null || ask === null) return null;
    return BigInt(Math.round(((bid + ask) / 2) * 10 ** digitsPrice));
  }
}
