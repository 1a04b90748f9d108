/** Where a base currency's fair price starts when its markets have no trade yet. */
const STARTING_PRICES: Record<string, number> = { BTC: 65_000, ETH: 3_500 };

/** Standard normal sample (Box-Muller). */
function gaussian(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * The demo's idea of one base currency's price: a geometric random walk pulled gently back to
 * where it started, so an hour-long demo wanders but does not run away. Futures quote around it
 * plus a small drifting basis, which is what moves the funding rate.
 */
export class FairPrice {
  private logPrice: number;
  private readonly anchor: number;
  private basis = 0.0005;

  constructor(
    start: number,
    private readonly random: () => number = Math.random,
    /** Standard deviation of one step's log return. */
    private readonly volatility = 0.0004,
  ) {
    this.logPrice = Math.log(start);
    this.anchor = this.logPrice;
  }

  static startingPrice(base: string, lastTrade?: number): number {
    return lastTrade && lastTrade > 0 ? lastTrade : (STARTING_PRICES[base] ?? 100);
  }

  /** One step of the walk (the demo takes one a second). */
  step(): void {
    const pull = (this.anchor - this.logPrice) * 0.002;
    this.logPrice += pull + this.volatility * gaussian(this.random);
    this.basis = Math.max(-0.002, Math.min(0.002, this.basis * 0.98 + 0.0001 * gaussian(this.random)));
  }

  get spot(): number {
    return Math.exp(this.logPrice);
  }

  get futures(): number {
    return this.spot * (1 + this.basis);
  }
}
