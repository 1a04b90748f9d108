import {
  ArgumentsRequired, InvalidOrder, OrderNotFound,
  type Dict, type FundingRate, type Int, type Market, type Num, type Order, type OrderSide, type Position, type Str,
  type Strings, type TransferEntry,
} from 'ccxt';
import { ExchangeBackendParsers } from './parsers';

const CREATED = 10;
const IN_POSITION = 50;

/**
 * The futures half (docs/futures.md#endpoints): one order becomes its own isolated position once
 * it fills, leverage is the futures account's, and every order names the account it trades from.
 */
export class ExchangeBackendFutures extends ExchangeBackendParsers {
  private readonly accountByCurrency = new Map<string, number>();

  /** `futuresAccountId` from params, else options, else the caller's first account in the market's settle currency. */
  protected async futuresAccountId(currencyId: string, params: Dict): Promise<number> {
    const given = this.safeInteger(params, 'futuresAccountId') ?? this.safeInteger(this.options, 'futuresAccountId');
    if (given !== undefined) return given;
    const known = this.accountByCurrency.get(currencyId);
    if (known !== undefined) return known;
    const accounts = (await this.call('private', 'GET', 'api/futures/accounts')) as Dict[];
    const account = accounts.find((a) => this.safeString(a, 'currencyCode') === currencyId);
    const id = this.safeInteger(account, 'id');
    if (id === undefined) {
      throw new ArgumentsRequired(
        `${this.id} has no futures account in ${currencyId}: open one (POST /api/futures/accounts) or pass params.futuresAccountId`,
      );
    }
    this.accountByCurrency.set(currencyId, id);
    return id;
  }

  protected async createFuturesOrder(market: Market, type: string, side: OrderSide, amount: number, price: Num, params: Dict): Promise<Order> {
    const m = market as NonNullable<Market>;
    const isMarket = type === 'market';
    if (!isMarket && price === undefined) throw new ArgumentsRequired(`${this.id} createOrder() needs a price for a limit order`);
    const body: Dict = {
      isMarket,
      isLong: side === 'buy',
      amount: this.parseNumber(this.amountToPrecision(m.symbol, amount)),
      currencyPairCode: m.id,
      futuresAccountId: await this.futuresAccountId(m.settleId as string, params),
      clientOrderId: this.safeString(params, 'clientOrderId'),
    };
    if (!isMarket) body.price = this.parseNumber(this.priceToPrecision(m.symbol, price as number));
    if (this.postOnlyOf(params)) body.postOnly = true;
    const stopLoss = this.attachedTrigger(params, 'stopLoss');
    const takeProfit = this.attachedTrigger(params, 'takeProfit');
    if (stopLoss !== undefined) body.stopLoss = stopLoss;
    if (takeProfit !== undefined) body.takeProfit = takeProfit;
    const created = (await this.call('private', 'POST', 'api/futures/trade/create-order', body)) as Dict;
    // the endpoint answers {id, clientOrderId} (the futures trade routes, docs/futures.md#endpoints): read the record for its state after matching
    return this.fetchFuturesOrder(this.safeString(created, 'id') as string, m);
  }

  /** ccxt's attached SL/TP: `stopLoss: {triggerPrice}` or a bare number. */
  private attachedTrigger(params: Dict, key: 'stopLoss' | 'takeProfit'): number | undefined {
    const v = params[key] as unknown;
    if (v === undefined || v === null) return undefined;
    return typeof v === 'object' ? this.safeNumber(v as Dict, 'triggerPrice') : Number(v);
  }

  protected postOnlyOf(params: Dict): boolean {
    return this.safeBool(params, 'postOnly') === true || this.safeString(params, 'timeInForce') === 'PO';
  }

  /** The caller's futures order records (newest first), optionally on one market and in some statuses. */
  protected futuresOrderRecords(market?: Market, statuses?: number[]): Promise<Dict[]> {
    const q: Dict = {};
    if (market !== undefined) q.CurrencyPair = market.id;
    if (statuses !== undefined) q.Statuses = statuses;
    return this.allPages('private', 'api/futures/trade/orders-history', q, 'Page');
  }

  protected async fetchFuturesOrder(id: string, market?: Market): Promise<Order> {
    // the history is newest first, so a fresh order is on the first page
    for (let page = 1; ; page++) {
      const q: Dict = { Page: page, PageSize: 500, ...(market ? { CurrencyPair: market.id } : {}) };
      const rows = (await this.call('private', 'GET', 'api/futures/trade/orders-history', q)) as Dict[];
      const row = rows.find((r) => this.safeString(r, 'id') === id);
      if (row) return this.parseFuturesOrder(row, market);
      if (rows.length < 500) throw new OrderNotFound(`${this.id} order ${id} not found`);
    }
  }

  /**
   * Cancels a futures order that has not filled. `close` would also close a position, which is
   * no cancel, so an order that filled in part is refused; closePosition() closes positions.
   */
  protected async cancelFuturesOrder(id: string, market?: Market): Promise<Order> {
    const order = await this.fetchFuturesOrder(id, market);
    const status = this.safeInteger(order.info, 'futuresOrderStatus');
    if (status === IN_POSITION) {
      throw new InvalidOrder(`${this.id} order ${id} has filled in part and is a position: closePosition() closes it`);
    }
    if (status !== CREATED) throw new OrderNotFound(`${this.id} order ${id} is not open`);
    // a limit close at the order's own price: should it fill meanwhile, nothing is dumped at market
    const closed = (await this.call('private', 'PUT', 'api/futures/trade/close', {
      orderId: Number(id),
      isMarket: false,
      limitPrice: order.price,
    })) as Dict;
    return this.parseFuturesOrder(closed, market);
  }

  override async fetchPositions(symbols?: Strings, params: Dict = {}): Promise<Position[]> {
    await this.loadMarkets();
    const rows = await this.allPages('private', 'api/futures/trade/positions', { IsActive: true, ...params }, 'Page');
    return this.ascending(this.parsePositions(rows, symbols) as (Position & { id?: string })[]);
  }

  /**
   * Closes the caller's open positions on `symbol` (of `side`, long or short, when given): at
   * market, or at `params.price` as a resting limit. Answers the last position's record.
   */
  override async closePosition(symbol: string, side?: OrderSide, params: Dict = {}): Promise<Order> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const positions = await this.fetchPositions([symbol]);
    const wanted = side === undefined ? undefined : side === 'buy' || side === 'long' ? 'long' : 'short';
    const open = positions.filter((p) => wanted === undefined || p.side === wanted);
    if (open.length === 0) throw new OrderNotFound(`${this.id} has no open ${wanted ?? ''} position on ${symbol}`);
    const price = this.safeNumber(params, 'price');
    let last: Dict = {};
    for (const p of open) {
      const body: Dict = { orderId: Number(p.id), isMarket: price === undefined };
      if (price !== undefined) body.limitPrice = this.parseNumber(this.priceToPrecision(symbol, price));
      last = (await this.call('private', 'PUT', 'api/futures/trade/close', body)) as Dict;
    }
    return this.parseFuturesOrder(last, market);
  }

  /** From the futures contracts feed: the funding rate of the round in progress and the index price. */
  override async fetchFundingRate(symbol: string, _params: Dict = {}): Promise<FundingRate> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const contracts = (await this.call('public', 'GET', 'api/external-providers/aggregator-a/contracts')) as Dict;
    const c = this.safeDict(this.safeList(contracts, market.id, []), 0, {}) as Dict;
    const next = this.safeInteger(c, 'next_funding_rate_timestamp');
    return {
      info: c, symbol: market.symbol, markPrice: undefined, indexPrice: this.safeNumber(c, 'index_price'),
      interestRate: undefined, estimatedSettlePrice: undefined, timestamp: undefined, datetime: undefined,
      fundingRate: this.safeNumber(c, 'funding_rate'), fundingTimestamp: next, fundingDatetime: this.iso(next),
      nextFundingRate: this.safeNumber(c, 'next_funding_rate'), nextFundingTimestamp: undefined,
      nextFundingDatetime: undefined, previousFundingRate: undefined, previousFundingTimestamp: undefined,
      previousFundingDatetime: undefined, interval: undefined,
    } as FundingRate;
  }

  /**
   * Moves money between the wallet (`spot`) and a futures account (`swap`: the default account in
   * that currency, or a futures account id).
   */
  override async transfer(code: string, amount: number, fromAccount: string, toAccount: string, params: Dict = {}): Promise<TransferEntry> {
    await this.loadMarkets();
    const currencyId = this.currency(code).id as string;
    const side = async (account: string): Promise<number | null> => {
      if (account === 'spot' || account === 'wallet') return null;
      if (/^\d+$/.test(account)) return Number(account);
      return this.futuresAccountId(currencyId, params);
    };
    const body = {
      fromFuturesAccountId: await side(fromAccount),
      toFuturesAccountId: await side(toAccount),
      currencyCode: currencyId,
      amount,
    };
    const res = await this.call('private', 'POST', 'api/wallet/transfer', body);
    const now = this.milliseconds();
    return {
      info: res, id: undefined, timestamp: now, datetime: this.iso8601(now), currency: code, amount,
      fromAccount, toAccount, status: 'ok',
    };
  }

  protected async fetchFuturesTrades(path: 'api/futures/deals' | 'api/futures/deals/user', market: Market, since: Int, limit: Int): Promise<Dict[]> {
    const q: Dict = { PageSize: Math.min(limit ?? 100, 500) };
    if (market !== undefined) q.CurrencyPair = market.id;
    if (since !== undefined) q.DateFrom = this.iso(since);
    const res = (await this.call(path.endsWith('/user') ? 'private' : 'public', 'GET', path, q)) as Dict;
    return this.safeList(res, 'items', []) as Dict[];
  }

  protected requireSymbol(symbol: Str, method: string): string {
    if (symbol === undefined) throw new ArgumentsRequired(`${this.id} ${method}() requires a symbol`);
    return symbol;
  }
}
