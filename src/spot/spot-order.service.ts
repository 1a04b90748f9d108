import BigNumber from 'bignumber.js';
import { MAX_SAFE, decimal, fitsEngine, minorString, toMinorDown } from '../domain/decimal';
import { AppError, conflict, notFound, rejected } from '../domain/errors';
import { scales, shardOfPair, type Pair } from '../domain/market';
import { idsByShard, shardOfId } from '../domain/shard-ids';
import { mergeFirst, pageOf, paged, type PageRequest, type PagedResult } from '../domain/paging';
import type { MarketStore } from '../markets';
import type { OrderType, Side, StpMode } from '../domain/order';
import type { PlaceResult, PlaceSpotInput, SpotEngine } from './spot-engine';
import { decodeSpotOrder, type SpotOrderRecord } from './spot-order-record';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Scripts } from '../platform/redis/scripts';
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

/**
 * How a spot order reaches money on its market's shard (ENGINE_SHARDS > 1): the user's home, and
 * the escrow that tops up from it (src/wallet). `escrow` is null with one shard: nothing moves then.
 */
export interface SpotFunding {
  homes: { of(userId: string): Promise<number> };
  escrow: {
    cover(userId: string, shard: number, cur: string, need: string, boost?: number): Promise<void>;
    /** Tops up only when the escrow holds less than `minor`; true when it moved money. */
    fund(userId: string, shard: number, cur: string, minor: string): Promise<boolean>;
  } | null;
}

/** Escrows this process last found short, at most this many remembered (a hint, not state: losing it costs one retry). */
const SHORT_ESCROWS_KEPT = 100_000;

/** Placements of one order that may each find the escrow short and top it up before the next. */
const FUNDED_ATTEMPTS = 6;

/** Spot order use cases: request numbers to engine units (rounded down, order-book rule 9, docs/api-contract.md#order-book-rules), checks, DTOs. */
export class SpotOrderService {
  /** user|shard|currency of escrows an order of this process found short, until one is found enough (placeFunded). */
  private readonly shortEscrows = new Set<string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
    private readonly markets: MarketStore,
    private readonly engine: SpotEngine,
    private readonly funding: SpotFunding,
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
    const { duplicate, order } = this.funding.escrow ? await this.placeFunded(input) : await this.engine.place(input);
    const pair = duplicate ? await this.spotPair(order.pair) : input.pair;
    return { duplicate, order: spotOrderDto(order, pair) };
  }

  /**
   * With several shards: the clientOrderId claimed at home first when the market is elsewhere
   * (one per user over every market), then the order placed on its market's shard; an order that finds
   * the escrow there short (or lost a race with a sweep) has it covered from home and is placed
   * again, inside this request.
   */
  private async placeFunded(input: PlaceSpotInput): Promise<PlaceResult> {
    const shard = shardOfPair(input.pair);
    const home = await this.funding.homes.of(input.userId);
    if (input.clientOrderId && home !== shard) {
      const earlier = await this.claimAtHome(input.userId, home, shard, input.clientOrderId);
      if (earlier) return earlier;
    }
    const escrow = this.funding.escrow as NonNullable<SpotFunding['escrow']>;
    const { cur, amount } = reservation(input);
    const short = home !== shard ? `${input.userId}|${shard}|${cur}` : null;
    if (short && this.shortEscrows.has(short)) {
      // the last order here found it short: top up first (a read when it is not) rather than run the placement twice
      if (!(await escrow.fund(input.userId, shard, cur, amount))) this.shortEscrows.delete(short);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.engine.place(input);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'CLIENT_ORDER_ID_ELSEWHERE' && input.clientOrderId) {
          // the script's detail, `@<shard>`, ends the message (engineError)
          return this.orderByClientId(input.userId, Number(/@(\d+)$/.exec(err.message)?.[1]), input.clientOrderId);
        }
        if (err.code !== 'INSUFFICIENT_BALANCE') throw err;
        // the user has the money (cover would have said otherwise): concurrent orders kept taking it first
        if (short) this.rememberShort(short);
        if (attempt >= FUNDED_ATTEMPTS) throw new AppError(503, 'ESCROW_BUSY', 'Orders of this user kept taking each other\'s top-ups; retry');
        // each retry asks for up to twice as much again, so orders racing for one escrow all end up covered
        await escrow.cover(input.userId, shard, cur, amount, 2 ** (attempt - 1));
      }
    }
  }

  private rememberShort(key: string): void {
    if (this.shortEscrows.size >= SHORT_ESCROWS_KEPT) this.shortEscrows.clear();
    this.shortEscrows.add(key);
  }

  /** The earlier order a clientOrderId names (at home or on the shard it was claimed for), or null when it is free. */
  private async claimAtHome(userId: string, home: number, shard: number, clid: string): Promise<PlaceResult | null> {
    const [status, held] = await this.scripts.run<string[]>(
      'claimClientOrderId',
      [this.shards.keys(home).clientOrderIds(userId)],
      [clid, `@${shard}`],
    );
    if (status === 'OK') return null;
    if (held.startsWith('@')) return this.orderByClientId(userId, Number(held.slice(1)), clid);
    return this.duplicateOf(userId, held, clid);
  }

  private async orderByClientId(userId: string, shard: number, clid: string): Promise<PlaceResult> {
    const id = await this.redis.hget(this.shards.keys(shard).clientOrderIds(userId), clid);
    return this.duplicateOf(userId, id, clid);
  }

  private async duplicateOf(userId: string, id: string | null, clid: string): Promise<PlaceResult> {
    const order = id ? (await this.orderRecords([id]))[0] : undefined;
    if (!order || order.user !== userId) {
      // claimed for a market whose order was refused, or is being placed right now
      throw conflict('CLIENT_ORDER_ID_IN_USE', `clientOrderId ${clid} is taken by an order on another market`);
    }
    return { duplicate: true, order };
  }

  /** The order is read first: its pair names the keys the cancel script is passed. */
  async cancel(userId: string, orderId: string): Promise<SpotOrderDto> {
    const h = (await this.orderRecords([orderId]))[0];
    if (!h || h.user !== userId) throw notFound('ORDER_NOT_FOUND', 'Order not found');
    const order = await this.engine.cancel(userId, await this.spotPair(h.pair), orderId, Date.now());
    return spotOrderDto(order, await this.spotPair(order.pair));
  }

  async cancelAll(userId: string, pairCode: string): Promise<number[]> {
    const pair = await this.spotPair(pairCode);
    return (await this.engine.cancelAll(userId, pair, Date.now())).map(Number);
  }

  async get(userId: string, orderId: string): Promise<SpotOrderDto> {
    const h = (await this.orderRecords([orderId]))[0];
    if (!h || h.user !== userId) throw notFound('ORDER_NOT_FOUND', 'Order not found');
    return spotOrderDto(h, await this.spotPair(h.pair));
  }

  /** The caller's orders, newest first, filtered by pair and status. */
  async list(userId: string, q: SpotOrderQuery): Promise<PagedResult<SpotOrderDto>> {
    const page = this.shards.count > 1 ? await this.listMerged(userId, q) : await this.listShardZero(userId, q);
    const items = await Promise.all(page.items.map(async (h) => spotOrderDto(h, await this.spotPair(h.pair))));
    return { ...page, items };
  }

  /**
   * Every shard's orders of the user merged: each shard's newest first (its index, by id), the shards
   * interleaved by creation time, then id (ids of two shards do not compare by age): a k-way merge
   * (mergeFirst), so page p reads p × pageSize orders of each shard and the counts, not every order,
   * and each order is on exactly one page. Filtered by pair, only that pair's shard is read; by
   * status, each shard's orders are read whole and filtered, as with one shard.
   */
  private async listMerged(userId: string, q: SpotOrderQuery): Promise<PagedResult<SpotOrderRecord>> {
    const index = (shard: number) => this.shards.keys(shard).userOrders(userId, 'spot');
    if (!q.currencyPairCode && !q.status) {
      const n = q.page * q.pageSize;
      const shards = this.shards.all().map((_, shard) => shard);
      const [lists, counts] = await Promise.all([
        Promise.all(shards.map(async (shard) => this.orderRecords(await this.redis.zrevrange(index(shard), 0, n - 1)))),
        Promise.all(shards.map((shard) => this.redis.zcard(index(shard)))),
      ]);
      return pageOf(mergeFirst(lists, newerOrder, n).slice(n - q.pageSize), counts.reduce((a, c) => a + c, 0), q);
    }
    const pair = q.currencyPairCode ? await this.markets.getPair('spot', q.currencyPairCode) : null;
    if (q.currencyPairCode && !pair) return pageOf([], 0, q);
    const shards = pair ? [shardOfPair(pair)] : this.shards.all().map((_, shard) => shard);
    const lists = await Promise.all(shards.map(async (shard) => (await this.orderRecords(await this.redis.zrevrange(index(shard), 0, -1))).filter(
      (h) => (!q.currencyPairCode || h.pair === q.currencyPairCode) && (!q.status || h.status === q.status),
    )));
    return paged(mergeFirst(lists, newerOrder, Infinity), q);
  }

  private async listShardZero(userId: string, q: SpotOrderQuery): Promise<PagedResult<SpotOrderRecord>> {
    const key = this.shards.keys(0).userOrders(userId, 'spot');
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
    return page;
  }

  /** A record as GET /api/orders/{id} answers it. */
  async dto(h: SpotOrderRecord): Promise<SpotOrderDto> {
    return spotOrderDto(h, await this.spotPair(h.pair));
  }

  /** Spot orders' records by id (the private stream builds its frames from them and the engine's `st` events). */
  records(ids: string[]): Promise<SpotOrderRecord[]> {
    return this.orderRecords(ids);
  }

  /**
   * Spot orders by id, in that order, each read on the shard its id names (src/domain/shard-ids.ts);
   * an id that is no spot order, or names no shard of this deployment, is left out.
   */
  private async orderRecords(ids: string[]): Promise<SpotOrderRecord[]> {
    const known = ids.filter((id) => /^\d{1,16}$/.test(id) && shardOfId(id) < this.shards.count);
    if (known.length === 0) return [];
    const hashes = new Map<string, Record<string, string>>();
    await Promise.all([...idsByShard(known)].map(async ([shard, shardIds]) => {
      // one pipeline per shard: a cluster pipeline stays in one slot
      const pipeline = this.redis.pipeline();
      for (const id of shardIds) pipeline.hgetall(this.shards.keys(shard).order(id));
      const replies = (await pipeline.exec()) ?? [];
      shardIds.forEach((id, i) => hashes.set(id, replies[i][1] as Record<string, string>));
    }));
    const orders = known.map((id) => decodeSpotOrder(id, hashes.get(id) ?? {}));
    return orders.filter((o): o is SpotOrderRecord => o !== null);
  }
}

/** Newer first: by creation time, then id (the merge order of listMerged). */
const newerOrder = (a: SpotOrderRecord, b: SpotOrderRecord): boolean =>
  Number(a.cts) > Number(b.cts) || (a.cts === b.cts && Number(a.id) > Number(b.id));

/** What an order reserves on its market's shard: currency and minor units (as lua/spot/placeSpotOrders computes it). */
function reservation(o: PlaceSpotInput): { cur: string; amount: string } {
  const { quoteScale, baseScale } = scales(o.pair);
  if (o.side === 'sell') return { cur: o.pair.baseCurrencyCode, amount: decimal(o.amountLots as string).times(baseScale).toFixed(0) };
  const quote = o.quoteBudget ? decimal(o.quoteBudget) : decimal(o.priceTicks as string).times(o.amountLots as string).times(quoteScale);
  return { cur: o.pair.quoteCurrencyCode, amount: quote.toFixed(0) };
}

function assertSafe(v: BigNumber): void {
  if (!fitsEngine(v)) {
    throw rejected('NOTIONAL_TOO_LARGE', `Value exceeds ${MAX_SAFE.toFixed()} minor units the engine holds exactly`);
  }
}

