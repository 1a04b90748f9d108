import type { BookSide } from '../../platform/redis/keys';

/** One market's aggregated book in engine units (ticks -> lots), as the stream's `book` events leave it. */
export class MarketBook {
  private readonly sides: Record<BookSide, Map<string, string>> = { bids: new Map(), asks: new Map() };

  reset(bids: [string, string][], asks: [string, string][]): void {
    this.sides.bids = new Map(bids);
    this.sides.asks = new Map(asks);
  }

  set(side: BookSide, ticks: string, lots: string): void {
    if (lots === '0') this.sides[side].delete(ticks);
    else this.sides[side].set(ticks, lots);
  }

  /** Levels best first. */
  levels(side: BookSide): [string, string][] {
    const dir = side === 'bids' ? -1 : 1;
    return [...this.sides[side].entries()].sort(([a], [b]) => dir * (Number(a) - Number(b)));
  }

  best(side: BookSide): [string, string] | undefined {
    let out: [string, string] | undefined;
    for (const [p, q] of this.sides[side]) {
      if (!out || (side === 'bids' ? Number(p) > Number(out[0]) : Number(p) < Number(out[0]))) out = [p, q];
    }
    return out;
  }
}
