import type { ApiClient } from './api-client';
import type { DemoStats } from './demo-stats';
import type { FairPrice } from './fair-price';
import { amountFor, roundPrice, type DemoMarket } from './markets';

/** A bot that acts once per `step` and leaves nothing behind in `finish`. */
export interface Bot {
  readonly name: string;
  /** Milliseconds until the next step. */
  nextDelay(): number;
  step(): Promise<void>;
  /** Closes positions at market before any bot cancels its quotes (futures bots). */
  flatten?(): Promise<void>;
  /** Cancels what the bot has working; resolves with how many orders or positions it had to leave. */
  finish(): Promise<number>;
}

/** Distance of quote level i (0 = best) from the fair price, as a fraction. */
export const levelOffset = (i: number) => 0.0004 + 0.0006 * i;

/**
 * Quotes `levels` bids and asks around the fair price, replacing all of them every second or so:
 * cancel-all, then the new ladder. Two makers per market, out of step, keep the book full while
 * one of them re-quotes.
 */
export class SpotMaker implements Bot {
  constructor(
    readonly name: string,
    private readonly api: ApiClient,
    private readonly market: DemoMarket,
    private readonly fair: FairPrice,
    private readonly stats: DemoStats,
    private readonly levels: number,
    private readonly notional: number,
    private readonly random: () => number = Math.random,
  ) {}

  nextDelay(): number {
    return 800 + this.random() * 400;
  }

  async step(): Promise<void> {
    await this.cancelAll();
    const mid = this.fair.spot;
    const orders: Promise<void>[] = [];
    for (let i = 0; i < this.levels; i++) {
      const skew = 1 + (this.random() - 0.5) * 0.0002;
      for (const side of ['buy', 'sell'] as const) {
        const price = roundPrice(this.market, mid * skew * (side === 'buy' ? 1 - levelOffset(i) : 1 + levelOffset(i)));
        const size = this.notional * (0.5 + this.random()) * (1 + i);
        orders.push(this.place(side, price, amountFor(this.market, size, price)));
      }
    }
    await Promise.all(orders);
  }

  async finish(): Promise<number> {
    await this.cancelAll();
    return 0;
  }

  private async place(side: 'buy' | 'sell', price: number, amount: number): Promise<void> {
    try {
      await this.api.post('/api/orders', { currencyPairCode: this.market.code, side, type: 'limit', price, amount });
      this.stats.placed++;
    } catch (err) {
      this.stats.error(`${this.name} ${side} ${amount} @ ${price}`, err);
    }
  }

  private async cancelAll(): Promise<void> {
    const r = await this.api.delete<{ cancelled: unknown[] }>('/api/orders', { currencyPairCode: this.market.code });
    this.stats.cancelled += r.cancelled.length;
  }
}

/** Market orders of random side and size every second or two: the trades on the tape. */
export class SpotTaker implements Bot {
  constructor(
    readonly name: string,
    private readonly api: ApiClient,
    private readonly market: DemoMarket,
    private readonly fair: FairPrice,
    private readonly stats: DemoStats,
    private readonly notional: number,
    private readonly random: () => number = Math.random,
  ) {}

  nextDelay(): number {
    return 500 + this.random() * 2000;
  }

  async step(): Promise<void> {
    const notional = this.notional * (0.2 + this.random() * 1.6);
    const order =
      this.random() < 0.5
        ? { side: 'buy', quoteAmount: Number(Math.max(notional, this.market.minNotional * 1.5).toFixed(2)) }
        : { side: 'sell', amount: amountFor(this.market, notional, this.fair.spot) };
    await this.api.post('/api/orders', { currencyPairCode: this.market.code, type: 'market', ...order });
    this.stats.marketOrders++;
  }

  async finish(): Promise<number> {
    return 0; // market orders never rest: nothing to cancel
  }
}
