import BigNumber from 'bignumber.js';
import { requirePair } from '../markets';
import { fitsEngine, MAX_SAFE, minorString, toMinorDown, decimal } from '../domain/decimal';
import { futuresParams, FuturesStatus } from '../domain/futures';
import { AppError, conflict, engineError, notFound, rejected } from '../domain/errors';
import type { Pair } from '../domain/market';
import { decodePlace, type CloseSize, type FuturesEngine, type CreateFuturesInput, type FuturesPlaceReply } from './futures-engine';
import type { StpMode } from '../domain/order';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { FuturesKeyring } from './futures-keyring';
import { futuresOrderDto, type FuturesOrderDto } from './futures-order-dto';
import { AdlRanking } from './adl-ranking';
import { FuturesOrderIndex } from './futures-order-index';
import type { FuturesPriceService } from './prices/futures-price.service';
import { copyAccount, type FuturesFunding } from './futures-account.service';
import { shardOfPair } from '../domain/market';
import { futuresOrderOf } from './futures-order-record';
import { idsByShard, shardOfId } from '../domain/shard-ids';

/** The create-order body of the futures trade routes (docs/futures.md#endpoints); postOnly, selfTradePrevention (docs/futures.md) and timeInForce are extensions. */
export interface CreateFuturesRequest {
  isMarket: boolean;
  isLong: boolean;
  price?: number | null;
  stopLoss?: number | null;
  takeProfit?: number | null;
  amount: number;
  currencyPairCode: string;
  futuresAccountId: number;
  clientOrderId?: string | null;
  postOnly?: boolean;
  selfTradePrevention?: StpMode;
  /** GTC (default): the unfilled rest of a limit order rests; IOC: it is cancelled at once. */
  timeInForce?: 'GTC' | 'IOC';
}

/** The close body of the futures trade routes (docs/futures.md#endpoints); `amount` (a partial close, default the whole position) is an extension. */
export interface CloseRequest {
  orderId: number;
  isMarket: boolean;
  limitPrice?: number | null;
  amount?: number | null;
  /** Not on the HTTP body: copy trading's closes, so a replayed mirror job closes nothing twice. */
  clientOrderId?: string;
  /**
   * Not on the HTTP body: copy trading's mirror of a master's partial close, in place of `amount`:
   * the master's lots closed and lots held before (integer texts); the engine closes that fraction
   * of the position's open quantity as it stands when the close runs.
   */
  share?: { closed: string; before: string };
}

/** One order of `createMany`: the order placed (or the earlier one its clientOrderId names), or why not. */
export type CreateManyResult =
  | { ok: true; id: number; clientOrderId: string | null; status: number; duplicate: boolean }
  | { ok: false; error: AppError };

/** The filters of orders-history and positions (the futures trade routes, docs/futures.md#endpoints), names as the query spells them. */
export interface FuturesListQuery {
  CurrencyPair?: string;
  Page: number;
  PageSize: number;
  DateFrom?: Date;
  DateTo?: Date;
  Statuses?: number[];
  FuturesAccountId?: number;
  IsActive?: boolean;
}

/** Placements of one order that may each find its account's margin on the market's shard short and top it up before the next. */
const FUNDED_ATTEMPTS = 4;

/** Statuses the open-orders index of an account holds: Created and InPosition. */
const OPEN_STATUSES = new Set([String(FuturesStatus.Created), String(FuturesStatus.InPosition)]);

/** Futures order use cases: request numbers to engine units (rounded down, order-book rule 9, docs/api-contract.md#order-book-rules), checks, DTOs. */
export class FuturesOrderService {
  private readonly orderIndex: FuturesOrderIndex;
  private readonly adl: AdlRanking;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
    private readonly markets: MarketStore,
    private readonly engine: FuturesEngine,
    private readonly prices: FuturesPriceService,
    private readonly funding: Pick<FuturesFunding, 'escrow'>,
  ) {
    this.orderIndex = new FuturesOrderIndex(redis, keys);
    this.adl = new AdlRanking(redis, keys);
  }

  futuresPair(code: string): Promise<Pair> {
    return requirePair(this.markets, 'futures', code);
  }

  /** Turns a request into engine units; every rejection here happens before the engine is touched. */
  async toEngineInput(userId: string, req: CreateFuturesRequest, timestamp: number): Promise<CreateFuturesInput> {
    const pair = await this.futuresPair(req.currencyPairCode);
    if (!pair.isActive) throw rejected('PAIR_INACTIVE', `Pair ${pair.code} is not trading`);
    const { ns } = futuresParams(pair);
    const lots = this.lots(pair, req.amount);
    const input: CreateFuturesInput = {
      userId, pairCode: pair.code, accountId: String(req.futuresAccountId), side: req.isLong ? 'buy' : 'sell',
      isMarket: req.isMarket, amountLots: minorString(lots), postOnly: !req.isMarket && !!req.postOnly,
      ioc: !req.isMarket && req.timeInForce === 'IOC',
      stp: req.selfTradePrevention ?? 'NONE', clientOrderId: req.clientOrderId ?? null, timestamp,
      tpTicks: this.optionalTicks(pair, req.takeProfit, 'takeProfit'),
      slTicks: this.optionalTicks(pair, req.stopLoss, 'stopLoss'),
    };
    if (!req.isMarket) {
      const ticks = this.ticks(pair, req.price as number, 'price');
      const notional = ticks.times(lots).times(ns);
      assertSafe(notional);
      if (notional.shiftedBy(-pair.quoteDecimals).lt(decimal(pair.minQuoteAmount))) {
        throw rejected('BELOW_MIN_QUOTE_AMOUNT', `price x amount is below the pair minimum ${pair.minQuoteAmount}`);
      }
      input.priceTicks = minorString(ticks);
    }
    return input;
  }

  /** `asCopy`: placed by copy trading's mirror; any other opening order into a copy account is a 409. */
  async create(userId: string, req: CreateFuturesRequest, asCopy = false): Promise<{ id: number; clientOrderId: string | null }> {
    // the copy flag is set when the account is made and never cleared, so reading it first is safe
    if (!asCopy && (await this.redis.hget(this.keys.ofAccount(req.futuresAccountId).futuresAccount(req.futuresAccountId), 'copy')) === '1') throw copyAccount();
    const input = await this.toEngineInput(userId, req, Date.now());
    const { order } = this.funding.escrow ? await this.createFunded(input) : await this.engine.create(input);
    return { id: Number(order.id), clientOrderId: order.clid ? order.clid : null };
  }

  /**
   * With several engine shards: the order is placed on its market's shard against the account's
   * margin there; when that is short (or the account has never been there), the margin it needs
   * comes from the account's free margin on shard 0 (itself brought back from other shards when
   * short) and the order is placed again, inside this request (docs/futures.md, "Futures on engine shards").
   */
  private async createFunded(input: CreateFuturesInput): Promise<FuturesPlaceReply> {
    const pair = await this.futuresPair(input.pairCode);
    const escrow = this.funding.escrow as NonNullable<FuturesFunding['escrow']>;
    const clid = input.clientOrderId;
    // one clientOrderId per user over every market: claimed in the registry at home first (docs/futures.md)
    const home = clid ? await this.keys.homeOf(input.userId) : 0;
    if (clid && shardOfPair(pair) !== home) {
      const held = await this.engine.claimClientOrderId(input.userId, clid, home, shardOfPair(pair));
      if (held !== null) return this.earlierOrder(input.userId, held, clid);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.engine.create(input);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        if (err.code === 'CLIENT_ORDER_ID_ELSEWHERE' && clid && err.engineDetail) return this.earlierOrder(input.userId, err.engineDetail, clid);
        if (!needsTopUp(err, pair, input.accountId)) throw err;
        if (attempt >= FUNDED_ATTEMPTS) throw new AppError(503, 'ESCROW_BUSY', 'Orders of this account kept taking each other\'s margin top-ups; retry');
        // the account's hash on this shard is made by the first top-up (an unknown account: 404 there)
        // (INSUFFICIENT_MARGIN's detail is what the order needs; ACCOUNT_NOT_FOUND's names the account)
        const need = err.code === 'INSUFFICIENT_MARGIN' && err.engineDetail && /^\d+$/.test(err.engineDetail) ? err.engineDetail : '1';
        try {
          // each retry asks for up to twice as much again, so orders racing for one account all end up covered
          await escrow.cover(input.userId, shardOfPair(pair), pair.quoteCurrencyCode, need, 2 ** (attempt - 1), input.accountId);
        } catch (short) {
          // the margin is nowhere else: the engine answers (its own 422, or the order a concurrent
          // twin with this clientOrderId placed meanwhile)
          if (short instanceof AppError && short.status === 422) return this.engine.create(input);
          throw short;
        }
      }
    }
  }

  /**
   * Places many orders in one engine call per pair (copy trading's fan-out of a master fill), each
   * exactly as if it came alone through `create`: one refused, here or by the engine, answers its
   * own error and stops none of the others. `asCopy` as in `create`.
   */
  async createMany(items: { userId: string; req: CreateFuturesRequest }[], asCopy = false): Promise<CreateManyResult[]> {
    const out: CreateManyResult[] = new Array(items.length);
    const copyFlags = asCopy ? [] : await this.copyFlags(items.map((i) => i.req.futuresAccountId));
    const byPair = new Map<string, { index: number; input: CreateFuturesInput }[]>();
    const now = Date.now();
    for (const [index, { userId, req }] of items.entries()) {
      try {
        if (copyFlags[index] === '1') throw copyAccount();
        const input = await this.toEngineInput(userId, req, now);
        byPair.set(input.pairCode, [...(byPair.get(input.pairCode) ?? []), { index, input }]);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        out[index] = { ok: false, error: err };
      }
    }
    const unfunded: { index: number; input: CreateFuturesInput }[] = [];
    for (const batch of byPair.values()) {
      const replies = await this.engine.createMany(batch.map((b) => b.input));
      for (const [i, { index, input }] of batch.entries()) {
        const r = replies[i];
        if (r[0] !== 'ERR') {
          out[index] = placedResult(decodePlace(r));
          continue;
        }
        const error = engineError(String(r[1]), r[2] ? String(r[2]) : undefined);
        // refused for its margin on the market's shard: placed again with a top-up, as `create` does
        if (this.funding.escrow && needsTopUp(error, await this.futuresPair(input.pairCode), input.accountId)) unfunded.push({ index, input });
        else out[index] = { ok: false, error };
      }
    }
    for (const { index, input } of unfunded) {
      try {
        out[index] = placedResult(await this.createFunded(input));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        out[index] = { ok: false, error: err };
      }
    }
    return out;
  }

  /**
   * The order a clientOrderId already names: `held` is its id (an order of the home shard, which the
   * id names) or `@<shard>` (that shard's own registry has it). 409 when it names no order of the user
   * (claimed for a market whose order was refused, or is being placed right now).
   */
  private async earlierOrder(userId: string, held: string, clid: string): Promise<FuturesPlaceReply> {
    const k = held.startsWith('@') ? this.keys.all()[Number(held.slice(1))] : this.keys.ofOrder(held);
    const id = held.startsWith('@') ? await this.redis.hget(k.futuresClientOrderIds(userId), clid) : held;
    const h = id ? futuresOrderOf(await this.redis.hgetall(k.order(id))) : {};
    if (h.user !== userId) throw conflict('CLIENT_ORDER_ID_IN_USE', `clientOrderId ${clid} is taken by an order on another market`);
    return { duplicate: true, order: { id: h.id, clid: h.clid ?? clid, status: h.status } };
  }

  /**
   * Each account's `copy` flag, in the ids' order: one round trip per registry shard the ids name
   * (accounts of several homes in one batch: a cluster pipeline stays on one slot's node).
   */
  private async copyFlags(accountIds: number[]): Promise<(string | null)[]> {
    const flags = new Map<string, string | null>();
    await Promise.all(
      [...idsByShard(accountIds.map(String)).values()].map(async (ids) => {
        const pipeline = this.redis.pipeline();
        for (const id of ids) pipeline.hget(this.keys.ofAccount(id).futuresAccount(id), 'copy');
        ((await pipeline.exec()) ?? []).forEach(([err, v], i) => {
          if (err) throw err;
          flags.set(ids[i], v as string | null);
        });
      }),
    );
    return accountIds.map((id) => flags.get(String(id)) ?? null);
  }

  /** The order is read first: its pair and account name the keys the close script is passed. */
  async close(userId: string, req: CloseRequest): Promise<FuturesOrderDto> {
    const h = await this.ownedHash(userId, req.orderId);
    const pair = await this.futuresPair(h.pair);
    const limit = req.isMarket ? null : minorString(this.ticks(pair, req.limitPrice as number, 'limitPrice'));
    const size: CloseSize = req.share
      ? { share: { ...req.share, lotLots: futuresParams(pair).lotLots } }
      : req.amount ? { lots: minorString(this.lots(pair, req.amount)) } : null;
    const order = { id: String(req.orderId), pair: h.pair, acct: h.acct };
    return this.dto(await this.engine.close(userId, order, limit, Date.now(), size, req.clientOrderId));
  }

  async updateTrigger(userId: string, orderId: number, which: 'tp' | 'sl', price: number | null | undefined) {
    const h = await this.ownedHash(userId, orderId);
    const ticks = this.optionalTicks(await this.futuresPair(h.pair), price, which === 'tp' ? 'takeProfit' : 'stopLoss');
    const order = { id: String(orderId), pair: h.pair };
    return this.dto(await this.engine.updateTrigger(userId, order, which, ticks ?? null, Date.now()));
  }

  /** One of the caller's orders (an opening order: the record of its position), or 404. */
  async get(userId: string, orderId: number): Promise<FuturesOrderDto> {
    return this.dto(await this.ownedHash(userId, orderId));
  }

  /** orders-history: every order of the caller, newest first. */
  ordersHistory(userId: string, q: FuturesListQuery): Promise<FuturesOrderDto[]> {
    const statuses = q.Statuses?.length ? new Set(q.Statuses.map(String)) : null;
    return this.list(userId, q, statuses);
  }

  /** positions: orders that became positions; IsActive true = in position, false = closed, omitted = both. */
  positions(userId: string, q: FuturesListQuery): Promise<FuturesOrderDto[]> {
    const wanted =
      q.IsActive === undefined
        ? [FuturesStatus.InPosition, FuturesStatus.PositionClosed]
        : [q.IsActive ? FuturesStatus.InPosition : FuturesStatus.PositionClosed];
    return this.list(userId, q, new Set(wanted.map(String)));
  }

  /** `statuses`: the statuses wanted, null for all. */
  private async list(userId: string, q: FuturesListQuery, statuses: Set<string> | null): Promise<FuturesOrderDto[]> {
    const rows = await this.candidates(userId, q, statuses);
    const from = q.DateFrom?.getTime();
    const to = q.DateTo?.getTime();
    const matching = rows.filter(
      (h) =>
        (!statuses || statuses.has(h.status)) &&
        (!q.CurrencyPair || h.pair === q.CurrencyPair) &&
        (q.FuturesAccountId === undefined || h.acct === String(q.FuturesAccountId)) &&
        (from === undefined || Number(h.cts) >= from) &&
        (to === undefined || Number(h.cts) <= to),
    );
    const start = (q.Page - 1) * q.PageSize;
    return Promise.all(matching.slice(start, start + q.PageSize).map((h) => this.dto(h)));
  }

  /**
   * The caller's orders the filters can keep, newest first: one account's from its index (only the
   * Created/InPosition ones when no other status is wanted), else every order of the caller.
   */
  private async candidates(userId: string, q: FuturesListQuery, statuses: Set<string> | null) {
    if (q.FuturesAccountId !== undefined) {
      const onlyOpen = statuses !== null && [...statuses].every((s) => OPEN_STATUSES.has(s));
      const rows = await this.orderIndex.accountOrders(q.FuturesAccountId, { status: onlyOpen ? 'open' : 'all' });
      // another user's account lists nothing, as it did when only the caller's orders were read
      return rows.filter((h) => h.user === userId).reverse();
    }
    return (await this.orderIndex.userOrders(userId)).reverse();
  }

  /** An order's record, {} when there is none (the private stream builds its frames from it and the engine's `st` events). */
  async record(orderId: number): Promise<Record<string, string>> {
    if (!/^\d{1,16}$/.test(String(orderId))) return {};
    return futuresOrderOf(await this.redis.hgetall(this.keys.ofOrder(orderId).order(orderId)));
  }

  private async ownedHash(userId: string, orderId: number): Promise<Record<string, string>> {
    const h = await this.record(orderId);
    if (h.user !== userId || h.kind !== 'futures' || h.role !== 'open') {
      throw notFound('ORDER_NOT_FOUND', 'Order not found');
    }
    return h;
  }

  /** A record as REST answers it: valued at the market's mark now, with its ADL quantile. */
  async dto(h: Record<string, string>): Promise<FuturesOrderDto> {
    const pair = await this.futuresPair(h.pair);
    const params = futuresParams(pair);
    const mark = await this.prices.markTicks(pair);
    return futuresOrderDto(h, pair, params, mark, await this.adl.quantile(h, params, mark));
  }

  /** An amount in lots, rounded down to the lot (order-book rule 9, docs/api-contract.md#order-book-rules); below the pair minimum is a 422. */
  private lots(pair: Pair, amount: number): BigNumber {
    const raw = toMinorDown(amount, pair.digitsAmount);
    const lots = raw.minus(raw.mod(futuresParams(pair).lotLots));
    assertSafe(lots);
    if (lots.lte(0) || lots.shiftedBy(-pair.digitsAmount).lt(decimal(pair.minBaseAmount))) {
      throw rejected('BELOW_MIN_BASE_AMOUNT', `amount is below the pair minimum ${pair.minBaseAmount} (lot ${pair.lotSize})`);
    }
    return lots;
  }

  private ticks(pair: Pair, price: number, path: string): BigNumber {
    const ticks = toMinorDown(price, pair.digitsPrice);
    assertSafe(ticks);
    if (ticks.lte(0)) {
      throw rejected('PRICE_TOO_SMALL', `${path} rounds to zero at ${pair.digitsPrice} digits`);
    }
    return ticks;
  }

  /** TP/SL: omitted, null or 0 means none (docs/futures.md). */
  private optionalTicks(pair: Pair, price: number | null | undefined, path: string): string | undefined {
    if (price === undefined || price === null || price === 0) return undefined;
    return minorString(this.ticks(pair, price, path));
  }
}

const assertSafe = (v: BigNumber) => {
  if (!fitsEngine(v)) throw rejected('NOTIONAL_TOO_LARGE', `Value exceeds ${MAX_SAFE.toFixed()} engine units`);
};

/**
 * An order refused for its margin on its market's shard: short there, or the account never there
 * yet (the first top-up makes its hash on that shard). The shard the account's id names holds its registry.
 */
const needsTopUp = (err: AppError, pair: Pick<Pair, 'engineShard'>, accountId: string): boolean =>
  err.code === 'INSUFFICIENT_MARGIN' || (err.code === 'ACCOUNT_NOT_FOUND' && shardOfPair(pair) !== shardOfId(accountId));

const placedResult = ({ duplicate, order }: FuturesPlaceReply): CreateManyResult => ({
  ok: true, id: Number(order.id), clientOrderId: order.clid || null, status: Number(order.status), duplicate,
});
