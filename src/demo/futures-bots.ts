import { ApiError, type ApiClient } from './api-client';
import type { DemoStats } from './demo-stats';
import type { FairPrice } from './fair-price';
import { amountFor, roundPrice, type DemoMarket } from './markets';
import { levelOffset, type Bot } from './spot-bots';

/** Futures order statuses (docs/api-contract.md#resources) the demo reads back from a close. */
const STATUS_IN_POSITION = 50;
/** Positions a maker carries before it closes the oldest at market. */
const MAX_MAKER_POSITIONS = 12;

interface FuturesOrderDto {
  id: number;
  isLong: boolean;
  futuresOrderStatus: number;
}

interface Tracked {
  isLong: boolean;
  /** A close answered status 50: the order has a position (maybe with a close order resting). */
  inPosition: boolean;
}

/**
 * Futures have no cancel: `PUT close` cancels an unfilled order, and closes a filled one, at
 * market or with a resting limit close order (a new close replaces the old). Every bot here keeps
 * the ids it placed and closes them; an id stays tracked while a close leaves it in position.
 */
export abstract class FuturesBot implements Bot {
  protected readonly open = new Map<number, Tracked>();

  constructor(
    readonly name: string,
    protected readonly api: ApiClient,
    protected readonly market: DemoMarket,
    protected readonly accountId: number,
    protected readonly fair: FairPrice,
    protected readonly stats: DemoStats,
    protected readonly random: () => number,
  ) {}

  abstract nextDelay(): number;
  abstract step(): Promise<void>;

  /** Closes the known positions at market, while every maker's quotes are still there to take. */
  async flatten(): Promise<void> {
    for (const [id, o] of [...this.open]) if (o.inPosition) await this.close(id, null);
  }

  /** Cancels the unfilled orders (and closes at market what turns out to be filled meanwhile). */
  async finish(): Promise<number> {
    for (const id of [...this.open.keys()]) await this.close(id, null);
    return this.open.size;
  }

  /**
   * What finish() could not close: positions (a quote filled in part while nobody was left on the
   * book to close against). After finish() every order still tracked has a position.
   */
  leftovers(): { id: number; isLong: boolean }[] {
    return [...this.open].map(([id, o]) => ({ id, isLong: o.isLong }));
  }

  /** Closes one position at market, or with a limit close order at `limitPrice` that rests for a counterparty. */
  closePosition(orderId: number, limitPrice: number | null): Promise<void> {
    return this.close(orderId, limitPrice);
  }

  get pair(): string {
    return this.market.code;
  }

  /** Also picks up what an earlier run left behind (it was stopped without its finish). */
  async adoptLeftovers(): Promise<void> {
    const q = { CurrencyPair: this.market.code, FuturesAccountId: this.accountId, PageSize: 500 };
    const [waiting, inPosition] = await Promise.all([
      this.api.get<FuturesOrderDto[]>('/api/futures/trade/orders-history', { ...q, Statuses: 10 }),
      this.api.get<FuturesOrderDto[]>('/api/futures/trade/positions', { ...q, IsActive: true }),
    ]);
    for (const o of waiting) this.open.set(o.id, { isLong: o.isLong, inPosition: false });
    for (const o of inPosition) this.open.set(o.id, { isLong: o.isLong, inPosition: true });
  }

  protected async create(isLong: boolean, amount: number, price?: number): Promise<void> {
    const body = {
      currencyPairCode: this.market.code,
      futuresAccountId: this.accountId,
      isLong,
      amount,
      isMarket: price === undefined,
      ...(price === undefined ? {} : { price }),
    };
    try {
      const r = await this.api.post<{ id: number }>('/api/futures/trade/create-order', body);
      this.open.set(r.id, { isLong, inPosition: price === undefined });
      if (price === undefined) this.stats.marketOrders++;
      else this.stats.placed++;
    } catch (err) {
      this.stats.error(`${this.name} ${isLong ? 'long' : 'short'} ${amount} @ ${price ?? 'market'}`, err);
    }
  }

  /**
   * Closes one order: at market (limitPrice null), or with a limit close order for a position.
   * An unfilled order is cancelled either way.
   */
  protected async close(orderId: number, limitPrice: number | null): Promise<void> {
    const tracked = this.open.get(orderId);
    if (!tracked) return;
    const body = limitPrice === null ? { orderId, isMarket: true } : { orderId, isMarket: false, limitPrice };
    try {
      const r = await this.api.put<FuturesOrderDto>('/api/futures/trade/close', body);
      this.stats.closes++;
      if (r.futuresOrderStatus === STATUS_IN_POSITION) tracked.inPosition = true;
      else this.open.delete(orderId);
    } catch (err) {
      // gone already (closed by TP/SL/liquidation or an earlier close): forget it
      if (err instanceof ApiError && (err.status === 409 || err.status === 404)) this.open.delete(orderId);
      else this.stats.error(`${this.name} close ${orderId}`, err);
    }
  }
}

/** Limit longs below and shorts above the futures fair price, replaced every second or so. */
export class FuturesMaker extends FuturesBot {
  constructor(
    name: string,
    api: ApiClient,
    market: DemoMarket,
    accountId: number,
    fair: FairPrice,
    stats: DemoStats,
    private readonly levels: number,
    private readonly notional: number,
    random: () => number = Math.random,
  ) {
    super(name, api, market, accountId, fair, stats, random);
  }

  nextDelay(): number {
    return 800 + this.random() * 400;
  }

  /**
   * Cancels the unfilled quotes and gives each position a limit close at the best quote level
   * (replacing its previous one), so positions unwind against the flow instead of sweeping the book.
   */
  async step(): Promise<void> {
    const mid = this.fair.futures;
    const positions = [...this.open].filter(([, o]) => o.inPosition);
    // more positions than the quotes unwind: the oldest go at market
    const excess = new Set(positions.slice(0, Math.max(0, positions.length - MAX_MAKER_POSITIONS)).map(([id]) => id));
    await Promise.all(
      [...this.open].map(([id, o]) =>
        this.close(id, excess.has(id) ? null : roundPrice(this.market, mid * (o.isLong ? 1 + levelOffset(0) : 1 - levelOffset(0)))),
      ),
    );
    const orders: Promise<void>[] = [];
    for (let i = 0; i < this.levels; i++) {
      for (const isLong of [true, false]) {
        const price = roundPrice(this.market, mid * (isLong ? 1 - levelOffset(i) : 1 + levelOffset(i)));
        const size = this.notional * (0.5 + this.random()) * (1 + i);
        orders.push(this.create(isLong, amountFor(this.market, size, price), price));
      }
    }
    await Promise.all(orders);
  }
}

/** Opens small positions at market and closes the oldest after a while. */
export class FuturesTaker extends FuturesBot {
  constructor(
    name: string,
    api: ApiClient,
    market: DemoMarket,
    accountId: number,
    fair: FairPrice,
    stats: DemoStats,
    private readonly notional: number,
    random: () => number = Math.random,
  ) {
    super(name, api, market, accountId, fair, stats, random);
  }

  nextDelay(): number {
    return 700 + this.random() * 2300;
  }

  async step(): Promise<void> {
    if (this.open.size >= 3 || (this.open.size > 0 && this.random() < 0.3)) {
      const [oldest] = this.open.keys();
      await this.close(oldest, null);
      return;
    }
    const notional = this.notional * (0.2 + this.random() * 1.6);
    await this.create(this.random() < 0.5, amountFor(this.market, notional, this.fair.futures));
  }
}
