import BigNumber from 'bignumber.js';
import { MAX_SAFE, decimal, fitsEngine, minorString, toMinorDown } from '../domain/decimal';
import { notFound, rejected } from '../domain/errors';
import { scales, type Pair } from '../domain/market';
import { pageOf, paged, type PageRequest, type PagedResult } from '../domain/paging';
import type { MarketStore } from '../markets';
import type { OrderType, Side, StpMode } from '../domain/order';
import type { PlaceSpotInput, SpotEngine } from './spot-engine';
import { decodeSpotOrder, type SpotOrderRecord } from './spot-order-record';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import { requirePair } from '../markets';
import { spotOrderDto, type SpotOrderDto } from './spot-order-dto';

export interface PlaceSpotRequest {
  currencyPairCode: string;
  side: Side;
  type: OrderType;
  price?: number;
  amount?: number;
  quoteAmount?: number;
  postOnly?: boolean;
  selfTradePrevention?: StpMode;
  clientOrderId?: string | null;
}

export interface SpotOrderQuery extends PageRequest {
  currencyPairCode?: string;
  status?: string;
}

/** Spot order use cases: request numbers to engine units (rounded down, order-book rule 9, docs/api-contract.md#order-book-rules), checks, DTOs. */
export class SpotOrderService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
    private readonly engine: SpotEngine,
  ) {}

  spotPair(code: string, namedIn: 'body' | 'path' = 'body'): Promise<Pair> {
    return requirePair(this.markets, 'spot', code, namedIn);
  }

  /** Turns a request into engine units; every rejection here happens before the engine is touched. */
  async toEngineInput(userId: string, req: PlaceSpotRequest, timestamp: number): Promise<PlaceSpotInput> {
    const pair = await this.spotPair(req.currencyPairCode);
    if (!pair.isActive) throw rejected('PAIR_INACTIVE', `Pair ${pair.code} is not trading`);
    const { quoteScale } = scales(pair);
    const input: PlaceSpotInput = {
      userId, pair, side: req.side, type: req.type, postOnly: req.type === 'limit' && !!req.postOnly,
      stp: req.selfTradePrevention ?? 'NONE', clientOrderId: req.clientOrderId ?? null, timestamp,
    };
    const minBase = decimal(pair.minBaseAmount);
    const minQuote = decimal(pair.minQuoteAmount);

    if (req.type === 'market' && req.side === 'buy') {
      const budget = toMinorDown(req.quoteAmount as number, pair.quoteDecimals);
      assertSafe(budget);
      if (budget.shiftedBy(-pair.quoteDecimals).lt(minQuote) || budget.lte(0)) {
        throw rejected('BELOW_MIN_QUOTE_AMOUNT', `quoteAmount is below the pair minimum ${pair.minQuoteAmount}`);
      }
      input.quoteBudget = minorString(budget);
      return input;
    }

    const lots = toMinorDown(req.amount as number, pair.digitsAmount);
    assertSafe(lots);
    if (lots.lte(0) || lots.shiftedBy(-pair.digitsAmount).lt(minBase)) {
      throw rejected('BELOW_MIN_BASE_AMOUNT', `amount is below the pair minimum ${pair.minBaseAmount}`);
    }
    input.amountLots = minorString(lots);
    if (req.type === 'limit') {
      const ticks = toMinorDown(req.price as number, pair.digitsPrice);
      assertSafe(ticks);
      if (ticks.lte(0)) throw rejected('PRICE_TOO_SMALL', `price rounds to zero at ${pair.digitsPrice} digits`);
      const quoteMinor = ticks.times(lots).times(quoteScale);
      assertSafe(quoteMinor);
      if (quoteMinor.shiftedBy(-pair.quoteDecimals).lt(minQuote)) {
        throw rejected('BELOW_MIN_QUOTE_AMOUNT', `price x amount is below the pair minimum ${pair.minQuoteAmount}`);
      }
      input.priceTicks = minorString(ticks);
    }
    return input;
  }

  async place(userId: string, req: PlaceSpotRequest): Promise<{ duplicate: boolean; order: SpotOrderDto }> {
    const input = await this.toEngineInput(userId, req, Date.now());
    const { duplicate, order } = await this.engine.place(input);
    const pair = duplicate ? await this.spotPair(order.pair) : input.pair;
    return { duplicate, order: spotOrderDto(order, pair) };
  }

  /** The order is read first: its pair names the keys the cancel script is passed. */
  async cancel(userId: string, orderId: string): Promise<SpotOrderDto> {
    const h = /^\d{1,16}$/.test(orderId) ? (await this.orderRecords([orderId]))[0] : null;
    if (!h || h.user !== userId) throw notFound('ORDER_NOT_FOUND', 'Order not found');
    const order = await this.engine.cancel(userId, { id: orderId, pair: h.pair }, Date.now());
    return spotOrderDto(order, await this.spotPair(order.pair));
  }

  async cancelAll(userId: string, pairCode: string): Promise<number[]> {
    await this.spotPair(pairCode);
    return (await this.engine.cancelAll(userId, pairCode, Date.now())).map(Number);
  }

  async get(userId: string, orderId: string): Promise<SpotOrderDto> {
    const h = /^\d{1,16}$/.test(orderId) ? (await this.orderRecords([orderId]))[0] : null;
    if (!h || h.user !== userId) throw notFound('ORDER_NOT_FOUND', 'Order not found');
    return spotOrderDto(h, await this.spotPair(h.pair));
  }

  /** The caller's orders, newest first, filtered by pair and status. */
  async list(userId: string, q: SpotOrderQuery): Promise<PagedResult<SpotOrderDto>> {
    const key = this.keys.userOrders(userId, 'spot');
    let page: PagedResult<Record<string, string>>;
    if (!q.currencyPairCode && !q.status) {
      // unfiltered: page straight off the sorted set
      const start = (q.page - 1) * q.pageSize;
      const [ids, total] = await Promise.all([
        this.redis.zrevrange(key, start, start + q.pageSize - 1),
        this.redis.zcard(key),
      ]);
      page = pageOf(await this.orderRecords(ids), total, q);
    } else {
      const rows = await this.orderRecords(await this.redis.zrevrange(key, 0, -1));
      page = paged(
        rows.filter((h) => (!q.currencyPairCode || h.pair === q.currencyPairCode) && (!q.status || h.status === q.status)),
        q,
      );
    }
    const items = await Promise.all(page.items.map(async (h) => spotOrderDto(h, await this.spotPair(h.pair))));
    return { ...page, items };
  }

  /** Spot orders by id, in that order; an id that is no spot order is left out. */
  private async orderRecords(ids: string[]): Promise<SpotOrderRecord[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.order(id));
    const hashes = (await pipeline.exec()) ?? [];
    const orders = ids.map((id, i) => decodeSpotOrder(id, hashes[i][1] as Record<string, string>));
    return orders.filter((o): o is SpotOrderRecord => o !== null);
  }
}

function assertSafe(v: BigNumber): void {
  if (!fitsEngine(v)) {
    throw rejected('NOTIONAL_TOO_LARGE', `Value exceeds ${MAX_SAFE.toFixed()} minor units the engine holds exactly`);
  }
}

