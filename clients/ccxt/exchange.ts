import {
  ArgumentsRequired, InvalidOrder, OrderNotFound, Precise,
  type Balances, type Currencies, type Dict, type Int, type MarketInterface, type Num, type OHLCV,
  type Order, type OrderBook, type OrderSide, type OrderType, type Str, type Strings, type Ticker, type Tickers, type Trade,
} from 'ccxt';
import { TIMEFRAMES } from './describe';
import { ExchangeBackendWatch } from './watch';

/**
 * A ccxt exchange for this service. Spot symbols read `BTC/USDT`, futures (linear perpetuals
 * settled in the quote currency) `BTC/USDT:USDT`; both kinds share the service's pair code
 * (`BTC_USDT`) as market id. Authenticate with a JWT as `apiKey` (or `token`).
 */
export class ExchangeBackend extends ExchangeBackendWatch {
  override async fetchMarkets(_params: Dict = {}): Promise<MarketInterface[]> {
    const [spot, futures] = await Promise.all([
      this.call('public', 'GET', 'api/currencies/pairs') as Promise<Dict[]>,
      this.call('public', 'GET', 'api/futures/exchange-data/pairs') as Promise<Dict[]>,
    ]);
    return [...spot.map((p) => this.parseSpotMarket(p)), ...futures.map((p) => this.parseFuturesMarket(p))];
  }

  override async fetchCurrencies(_params: Dict = {}): Promise<Currencies> {
    const rows = (await this.call('public', 'GET', 'api/currencies')) as Dict[];
    const out: Currencies = {};
    for (const c of rows) {
      const currency = this.parseServiceCurrency(c);
      out[currency.code as string] = currency;
    }
    return out;
  }

  override async fetchTickers(symbols?: Strings, params: Dict = {}): Promise<Tickers> {
    await this.loadMarkets();
    const [type] = this.handleMarketTypeAndParams('fetchTickers', symbols?.length ? this.market(symbols[0]) : undefined, params);
    const out: Dict = {};
    if (type === 'swap') {
      const contracts = (await this.call('public', 'GET', 'api/external-providers/aggregator-a/contracts')) as Dict;
      for (const id of Object.keys(contracts)) {
        const market = this.safeMarket(id, undefined, undefined, 'swap');
        out[market.symbol] = this.parseTicker(this.safeDict(contracts[id], 0, {}) as Dict, market);
      }
    } else {
      const rows = (await this.call('public', 'GET', 'api/marketdata/getaggregatorb/summary')) as Dict[];
      for (const row of rows) {
        const market = this.safeMarket(this.safeString(row, 'trading_pairs'), undefined, undefined, 'spot');
        out[market.symbol] = this.parseTicker(row, market);
      }
    }
    return this.filterByArrayTickers(out, 'symbol', symbols);
  }

  override async fetchTicker(symbol: string, params: Dict = {}): Promise<Ticker> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const tickers = await this.fetchTickers([symbol], { ...params, type: market.type });
    const ticker = tickers[market.symbol];
    if (!ticker) throw new ArgumentsRequired(`${this.id} has no ticker for ${symbol}`);
    return ticker;
  }

  override async fetchOrderBook(symbol: string, limit?: Int, _params: Dict = {}): Promise<OrderBook> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const depth = limit !== undefined ? { depth: limit } : {};
    const book = (
      this.isFutures(market)
        ? await this.call('public', 'GET', 'api/futures/trade/orderbook/{currencyPairCode}', { currencyPairCode: market.id, ...depth })
        : await this.call('public', 'GET', 'api/orderbook/{pair}', { pair: market.id, ...depth })
    ) as Dict;
    const parsed = this.parseOrderBook(book, market.symbol, undefined, 'bids', 'asks', 'price', 'quantity');
    // the spot book carries the websocket's sequence number
    parsed.nonce = this.safeInteger(book, 'seq');
    return parsed;
  }

  override async fetchTrades(symbol: string, since?: Int, limit?: Int, _params: Dict = {}): Promise<Trade[]> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const rows = this.isFutures(market)
      ? await this.fetchFuturesTrades('api/futures/deals', market, since, limit)
      : ((await this.call('public', 'GET', 'api/trades/{pair}', { pair: market.id, limit: limit ?? 100 })) as Dict[]);
    return this.parseTrades(rows, market, since, limit);
  }

  override async fetchOHLCV(symbol: string, timeframe = '1m', since?: Int, limit?: Int, _params: Dict = {}): Promise<OHLCV[]> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const period = TIMEFRAMES[timeframe];
    if (period === undefined) throw new ArgumentsRequired(`${this.id} has no timeframe ${timeframe}`);
    const q: Dict = { CurrencyPair: market.id, Kind: this.isFutures(market) ? 'futures' : 'spot', CandleTimePeriod: period };
    const span = (limit ?? 500) * period * 1000;
    if (since !== undefined) {
      q.DateFrom = this.iso(since);
      q.DateTo = this.iso(since + span);
    } else if (limit !== undefined) {
      q.DateFrom = this.iso(this.milliseconds() - span);
    }
    const rows = (await this.call('public', 'GET', 'api/futures/exchange-data/candles', q)) as Dict[];
    return this.parseOHLCVs(rows, market, timeframe, since, limit);
  }

  /** The wallet by default; `{type: 'swap'}` reads the futures accounts, summed per currency. */
  override async fetchBalance(params: Dict = {}): Promise<Balances> {
    await this.loadMarkets();
    const [type] = this.handleMarketTypeAndParams('fetchBalance', undefined, params);
    if (type === 'swap' || type === 'future') {
      const rows = (await this.call('private', 'GET', 'api/futures/accounts')) as Dict[];
      const id = this.safeInteger(params, 'futuresAccountId');
      return this.parseFuturesBalance(id === undefined ? rows : rows.filter((r) => this.safeInteger(r, 'id') === id));
    }
    return this.parseWalletBalance((await this.call('private', 'GET', 'api/wallet/balances')) as Dict[]);
  }

  /**
   * Limit and market orders; params `clientOrderId`, `postOnly` (or timeInForce `PO`),
   * `selfTradePrevention`. A spot market buy spends a quote amount: `params.cost`, else amount × price.
   * Futures also take `futuresAccountId` and attached `stopLoss` / `takeProfit`.
   */
  override async createOrder(symbol: string, type: OrderType, side: OrderSide, amount: number, price?: Num, params: Dict = {}): Promise<Order> {
    await this.loadMarkets();
    const market = this.market(symbol);
    if (type !== 'limit' && type !== 'market') throw new InvalidOrder(`${this.id} has limit and market orders only`);
    if (this.isFutures(market)) return this.createFuturesOrder(market, type, side, amount, price, params);
    const body: Dict = { currencyPairCode: market.id, side, type };
    const clientOrderId = this.safeString(params, 'clientOrderId');
    if (clientOrderId !== undefined) body.clientOrderId = clientOrderId;
    const stp = this.safeString(params, 'selfTradePrevention');
    if (stp !== undefined) body.selfTradePrevention = stp;
    if (type === 'limit') {
      if (price === undefined) throw new ArgumentsRequired(`${this.id} createOrder() needs a price for a limit order`);
      body.price = this.parseNumber(this.priceToPrecision(symbol, price));
      body.amount = this.parseNumber(this.amountToPrecision(symbol, amount));
      if (this.postOnlyOf(params)) body.postOnly = true;
    } else if (side === 'buy') {
      body.quoteAmount = this.marketBuyCost(amount, price, params);
    } else {
      body.amount = this.parseNumber(this.amountToPrecision(symbol, amount));
    }
    return this.parseSpotOrder((await this.call('private', 'POST', 'api/orders', body)) as Dict, market);
  }

  override async createMarketBuyOrderWithCost(symbol: string, cost: number, params: Dict = {}): Promise<Order> {
    return this.createOrder(symbol, 'market', 'buy', cost, undefined, { ...params, cost });
  }

  private marketBuyCost(amount: number, price: Num, params: Dict): number {
    const cost = this.safeNumber2(params, 'cost', 'quoteAmount');
    if (cost !== undefined) return cost;
    if (price === undefined) {
      throw new InvalidOrder(
        `${this.id} a market buy spends a quote amount: pass params.cost, a price (cost = amount × price) or use createMarketBuyOrderWithCost()`,
      );
    }
    // the service rounds the quote amount down to the currency's decimals
    return this.parseNumber(Precise.stringMul(this.numberToString(amount), this.numberToString(price)));
  }

  override async cancelOrder(id: string, symbol?: Str, _params: Dict = {}): Promise<Order> {
    await this.loadMarkets();
    const market = symbol === undefined ? undefined : this.market(symbol);
    if (this.isFutures(market)) return this.cancelFuturesOrder(id, market);
    try {
      return this.parseSpotOrder((await this.call('private', 'DELETE', 'api/orders/{orderId}', { orderId: id })) as Dict, market);
    } catch (e) {
      // order ids are one sequence over both kinds: without a symbol, a futures order is tried next
      if (market === undefined && e instanceof OrderNotFound) return this.cancelFuturesOrder(id);
      throw e;
    }
  }

  /**
   * Every open order of the caller on the market. Futures: those not filled at all (one that filled
   * in part is a position, which cancelOrder refuses too: closePosition closes it).
   */
  override async cancelAllOrders(symbol?: Str, _params: Dict = {}): Promise<Order[]> {
    await this.loadMarkets();
    const market = this.market(this.requireSymbol(symbol, 'cancelAllOrders'));
    if (this.isFutures(market)) {
      const open = await this.fetchOpenOrders(market.symbol);
      const unfilled = open.filter((o) => this.safeInteger(o.info, 'futuresOrderStatus') === 10);
      return Promise.all(unfilled.map((o) => this.cancelFuturesOrder(o.id as string, market)));
    }
    const res = (await this.call('private', 'DELETE', 'api/orders', { currencyPairCode: market.id })) as Dict;
    const ids = this.safeList(res, 'cancelled', []) as number[];
    return ids.map((id) => this.safeOrder({ id: String(id), symbol: market.symbol, status: 'canceled', info: { id } }, market));
  }

  override async fetchOrder(id: string, symbol?: Str, _params: Dict = {}): Promise<Order> {
    await this.loadMarkets();
    const market = symbol === undefined ? undefined : this.market(symbol);
    if (this.isFutures(market)) return this.fetchFuturesOrder(id, market);
    try {
      return this.parseSpotOrder((await this.call('private', 'GET', 'api/orders/{orderId}', { orderId: id })) as Dict, market);
    } catch (e) {
      if (market === undefined && e instanceof OrderNotFound) return this.fetchFuturesOrder(id);
      throw e;
    }
  }

  /** All the caller's orders on a market (spot by default when no symbol is given), oldest first. */
  override async fetchOrders(symbol?: Str, since?: Int, limit?: Int, params: Dict = {}): Promise<Order[]> {
    await this.loadMarkets();
    const market = symbol === undefined ? undefined : this.market(symbol);
    const [type] = this.handleMarketTypeAndParams('fetchOrders', market, params);
    if (type === 'swap') {
      const rows = await this.futuresOrderRecords(market);
      return this.ascending(rows.map((r) => this.parseFuturesOrder(r, market)), since, limit);
    }
    const q: Dict = market === undefined ? {} : { currencyPairCode: market.id };
    const status = this.safeString(params, 'status');
    if (status !== undefined) q.status = status;
    const rows = await this.allPages('private', 'api/orders', q, 'page');
    return this.ascending(rows.map((r) => this.parseSpotOrder(r, market)), since, limit);
  }

  override async fetchOpenOrders(symbol?: Str, since?: Int, limit?: Int, params: Dict = {}): Promise<Order[]> {
    await this.loadMarkets();
    const market = symbol === undefined ? undefined : this.market(symbol);
    const [type] = this.handleMarketTypeAndParams('fetchOpenOrders', market, params);
    let orders: Order[];
    if (type === 'swap') {
      const rows = await this.futuresOrderRecords(market, [10, 50]);
      orders = rows.map((r) => this.parseFuturesOrder(r, market)).filter((o) => o.status === 'open');
    } else {
      const [open, partial] = await Promise.all(
        ['open', 'partiallyFilled'].map((status) => this.fetchOrders(symbol, undefined, undefined, { ...params, status })),
      );
      orders = [...open, ...partial];
    }
    return this.ascending(orders, since, limit);
  }

  override async fetchClosedOrders(symbol?: Str, since?: Int, limit?: Int, params: Dict = {}): Promise<Order[]> {
    const all = await this.fetchOrders(symbol, undefined, undefined, params);
    return this.ascending(all.filter((o) => o.status !== 'open'), since, limit);
  }

  /** The caller's fills on one market: spot from /api/trades/{pair}/user, futures from the user deals. */
  override async fetchMyTrades(symbol?: Str, since?: Int, limit?: Int, _params: Dict = {}): Promise<Trade[]> {
    await this.loadMarkets();
    const market = this.market(this.requireSymbol(symbol, 'fetchMyTrades'));
    let rows: Dict[];
    if (this.isFutures(market)) {
      rows = await this.fetchFuturesTrades('api/futures/deals/user', market, since, limit);
    } else {
      const q: Dict = { pair: market.id, limit: Math.min(limit ?? 100, 1000) };
      if (since !== undefined) q.since = this.iso(since);
      rows = (await this.call('private', 'GET', 'api/trades/{pair}/user', q)) as Dict[];
    }
    return this.parseTrades(rows, market, since, limit);
  }
}

export default ExchangeBackend;
