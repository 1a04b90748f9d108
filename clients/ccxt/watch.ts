import {
  AuthenticationError, ExchangeError, InvalidNonce, NotSupported,
  type Balances, type Dict, type Int, type Market, type OHLCV, type Order, type OrderBook, type Position, type Str, type Strings,
  type Ticker, type Trade,
} from 'ccxt';
import { TIMEFRAMES } from './describe';
import { ExchangeBackendFutures } from './futures';

type Frame = Dict & { op?: string; channel?: string; type?: string; seq?: number; data?: unknown };
type WsClient = ReturnType<ExchangeBackendFutures['client']>;

/**
 * ccxt's pro (websocket) methods over the service's two sockets (docs/market-data.md): market data
 * on `/ws` (watchOrderBook, watchTrades, watchTicker, watchOHLCV) and the caller's own state on the
 * private stream `/ws/user` (watchOrders, watchMyTrades, watchBalance, watchPositions), which takes
 * the same JWT as REST in its first frame. Orders are never placed over a socket (docs/api-contract.md#order-book-rules).
 *
 * Lists return what arrived since the previous call (ccxt's newUpdates), kept per message hash
 * until asked for, so nothing that arrives between two calls is lost. A gap in `seq` (the
 * book's per market, the private stream's per connection) ends the connection with InvalidNonce;
 * the next call reconnects and starts from a fresh snapshot.
 */
export class ExchangeBackendWatch extends ExchangeBackendFutures {
  private readonly pending = new Map<string, unknown[]>();
  private readonly bookSeq = new Map<string, number>();
  private readonly privateSeq = new WeakMap<object, number>();
  /** The auth of each private connection: sent once, awaited by every watcher on it. */
  private readonly auths = new WeakMap<object, Promise<unknown>>();
  private walletRows: Dict = {};
  private futuresRows: Dict = {};

  private wsUrl(kind: 'public' | 'private'): string {
    return ((this.urls.api as Dict).ws as Dict)[kind] as string;
  }

  /** A socket's URL, ready to open: ccxt opens a plain ws:// URL only through a loaded http agent. */
  private async socketUrl(kind: 'public' | 'private'): Promise<string> {
    await this.loadMarkets();
    await this.loadHttpProxyAgent();
    return this.wsUrl(kind);
  }

  /** Items for `hash` that arrived since the last call, those of `keep` taken, the rest left. */
  private take<T>(hash: string, keep: (x: T) => boolean = () => true): T[] {
    const all = (this.pending.get(hash) ?? []) as T[];
    const out = all.filter(keep);
    this.pending.set(hash, all.filter((x) => !keep(x)));
    return out;
  }

  private put(client: WsClient, hash: string, items: unknown[]): void {
    if (items.length === 0) return;
    const list = this.pending.get(hash) ?? [];
    list.push(...items);
    // a caller that stopped asking must not grow this without bound
    if (list.length > 1000) list.splice(0, list.length - 1000);
    this.pending.set(hash, list);
    client.resolve(true, hash);
  }

  /** Waits for new items of `hash` unless some are already there. */
  private async updates<T>(url: string, hash: string, subscribe: Dict, keep?: (x: T) => boolean): Promise<T[]> {
    for (;;) {
      const ready = this.take<T>(hash, keep);
      if (ready.length > 0) return ready;
      await this.watch(url, hash, subscribe, hash);
    }
  }

  private kindOf(market: Market): 'spot' | 'futures' {
    return this.isFutures(market) ? 'futures' : 'spot';
  }

  private marketOf(code: string | undefined, kind: string | undefined): NonNullable<Market> {
    return this.safeMarket(code, undefined, undefined, kind === 'futures' ? 'swap' : 'spot') as NonNullable<Market>;
  }

  // --- market data: /ws ---

  override async watchOrderBook(symbol: string, limit?: Int, _params: Dict = {}): Promise<OrderBook> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const hash = `orderbook:${market.symbol}`;
    const book = await this.watch(
      await this.socketUrl('public'),
      hash,
      { op: 'subscribe', channel: 'orderbook', market: market.id, kind: this.kindOf(market) },
      hash,
    );
    return (book as { limit(n?: number): OrderBook }).limit(limit);
  }

  override async watchTrades(symbol: string, since?: Int, limit?: Int, _params: Dict = {}): Promise<Trade[]> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const hash = `trades:${market.symbol}`;
    const sub = { op: 'subscribe', channel: 'deals', market: market.id, kind: this.kindOf(market) };
    return this.ascending(await this.updates<Trade>(await this.socketUrl('public'), hash, sub), since, limit);
  }

  override async watchTicker(symbol: string, _params: Dict = {}): Promise<Ticker> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const hash = `ticker:${market.symbol}`;
    const sub = { op: 'subscribe', channel: 'ticker', market: market.id, kind: this.kindOf(market) };
    return (await this.watch(await this.socketUrl('public'), hash, sub, hash)) as Ticker;
  }

  override async watchOHLCV(symbol: string, timeframe = '1m', since?: Int, limit?: Int, _params: Dict = {}): Promise<OHLCV[]> {
    await this.loadMarkets();
    const market = this.market(symbol);
    const period = TIMEFRAMES[timeframe];
    if (period === undefined) throw new NotSupported(`${this.id} has no timeframe ${timeframe}`);
    const hash = `ohlcv:${market.symbol}:${period}`;
    const sub = { op: 'subscribe', channel: 'candles', market: market.id, kind: this.kindOf(market), period };
    const candles = await this.updates<OHLCV>(await this.socketUrl('public'), hash, sub);
    // the same candle updated twice since the last call: its last state
    const byTime = new Map(candles.map((c) => [c[0], c]));
    return this.filterBySinceLimit([...byTime.values()].sort((a, b) => (a[0] as number) - (b[0] as number)), since, limit, 0, true) as OHLCV[];
  }

  // --- the caller's own state: /ws/user ---

  /** Signs the private connection in with the JWT (apiKey or token); once per connection. */
  private async authenticated(): Promise<string> {
    const url = await this.socketUrl('private');
    const client = this.client(url);
    let auth = this.auths.get(client);
    if (!auth) {
      auth = this.watch(url, 'auth', { op: 'auth', token: this.bearerToken() }, 'auth') as Promise<unknown>;
      this.auths.set(client, auth);
    }
    await auth;
    return url;
  }

  private async privateUpdates<T>(channel: string, keep?: (x: T) => boolean): Promise<T[]> {
    const url = await this.authenticated();
    return this.updates<T>(url, channel, { op: 'subscribe', channel }, keep);
  }

  /** Spot and futures orders as they change (a futures order is also its position's record). */
  override async watchOrders(symbol?: Str, since?: Int, limit?: Int, _params: Dict = {}): Promise<Order[]> {
    await this.loadMarkets();
    const wanted = symbol === undefined ? undefined : this.market(symbol).symbol;
    const orders = await this.privateUpdates<Order>('orders', (o) => wanted === undefined || o.symbol === wanted);
    return this.ascending(orders, since, limit);
  }

  override async watchMyTrades(symbol?: Str, since?: Int, limit?: Int, _params: Dict = {}): Promise<Trade[]> {
    await this.loadMarkets();
    const wanted = symbol === undefined ? undefined : this.market(symbol).symbol;
    const trades = await this.privateUpdates<Trade>('fills', (t) => wanted === undefined || t.symbol === wanted);
    return this.ascending(trades as (Trade & { timestamp: number })[], since, limit);
  }

  /** The wallet by default; `{type: 'swap'}` the futures accounts, summed per currency (as fetchBalance). */
  override async watchBalance(params: Dict = {}): Promise<Balances> {
    await this.loadMarkets();
    const [type] = this.handleMarketTypeAndParams('watchBalance', undefined, params);
    const futures = type === 'swap' || type === 'future';
    await this.privateUpdates<string>('balances', (b) => b === (futures ? 'futures' : 'wallet'));
    return futures
      ? this.parseFuturesBalance(Object.values(this.futuresRows) as Dict[])
      : this.parseWalletBalance(Object.values(this.walletRows) as Dict[]);
  }

  override async watchPositions(symbols?: Strings, since?: Int, limit?: Int, _params: Dict = {}): Promise<Position[]> {
    await this.loadMarkets();
    const wanted = symbols?.map((s) => this.market(s).symbol);
    const positions = await this.privateUpdates<Position>('positions', (p) => !wanted || wanted.includes(p.symbol as string));
    return this.ascending(positions as (Position & { id?: string })[], since, limit);
  }

  // --- frames ---

  override handleMessage(client: WsClient, message: Frame): void {
    if (client.url === this.wsUrl('private')) return this.handlePrivate(client, message);
    if (message.op === 'error') return void client.reject(new ExchangeError(`${this.id} ${this.json(message)}`));
    // acknowledgements (subscribed, unsubscribed) carry no data
    if (message.op !== undefined) return;
    const market = this.marketOf(message.market as string, message.kind as string);
    switch (message.channel) {
      case 'orderbook':
        return this.handleBook(client, market, message);
      case 'deals':
        return this.put(client, `trades:${market.symbol}`, (message.deals as Dict[]).map((d) => this.parseTrade(d, market)));
      case 'ticker':
        return void client.resolve(this.wsTicker(message, market), `ticker:${market.symbol}`);
      case 'candles':
        return this.put(client, `ohlcv:${market.symbol}:${String(message.period)}`, [this.parseOHLCV(message.candle as Dict, market)]);
    }
  }

  private handleBook(client: WsClient, market: NonNullable<Market>, m: Frame): void {
    const hash = `orderbook:${market.symbol}`;
    const seq = m.seq as number;
    if (m.type === 'snapshot') {
      const book = this.orderBook({});
      book.reset({ bids: m.bids, asks: m.asks, nonce: seq, symbol: market.symbol, timestamp: this.milliseconds() });
      this.orderbooks[market.symbol] = book;
    } else {
      const book = this.orderbooks[market.symbol];
      if (!book) return;
      const have = this.bookSeq.get(market.symbol);
      if (seq !== (have ?? -1) + 1) {
        delete this.orderbooks[market.symbol];
        return client.reset(new InvalidNonce(`${this.id} ${market.symbol} book seq ${String(have)} then ${seq}: resubscribe`));
      }
      for (const [p, q] of m.bids as [number, number][]) book.bids.store(p, q);
      for (const [p, q] of m.asks as [number, number][]) book.asks.store(p, q);
      book.nonce = seq;
      book.timestamp = this.safeInteger(m, 'ts') as number;
      book.datetime = this.iso8601(book.timestamp) as string;
    }
    this.bookSeq.set(market.symbol, seq);
    client.resolve(this.orderbooks[market.symbol], hash);
  }

  /** The socket's ticker: last trade, best bid and ask with their sizes; futures also mark and index. */
  private wsTicker(t: Frame, market: NonNullable<Market>): Ticker {
    const bid = t.bestBid as [number, number] | null;
    const ask = t.bestAsk as [number, number] | null;
    const timestamp = typeof t.lastTimestamp === 'string' ? this.parse8601(t.lastTimestamp) : undefined;
    return this.safeTicker({
      symbol: market.symbol, timestamp, datetime: this.iso8601(timestamp),
      bid: bid?.[0], bidVolume: bid?.[1], ask: ask?.[0], askVolume: ask?.[1],
      last: t.last ?? undefined, close: t.last ?? undefined,
      markPrice: t.markPrice ?? undefined, indexPrice: t.indexPrice ?? undefined,
      info: t,
    }, market);
  }

  private handlePrivate(client: WsClient, m: Frame): void {
    const seq = m.seq as number;
    const had = this.privateSeq.get(client) ?? 0;
    if (seq !== had + 1) return client.reset(new InvalidNonce(`${this.id} private stream seq ${had} then ${seq}: reconnect`));
    this.privateSeq.set(client, seq);
    if (m.op === 'auth') return void client.resolve(true, 'auth');
    if (m.op === 'error') {
      const error = m.code === 'UNAUTHORIZED' ? new AuthenticationError(`${this.id} ${String(m.message)}`) : new ExchangeError(`${this.id} ${this.json(m)}`);
      return void client.reject(error);
    }
    if (m.op !== undefined) return;
    const rows = (m.type === 'snapshot' ? m.data : [m.data]) as Dict[];
    switch (m.channel) {
      case 'orders':
        // a snapshot is the state to start from; what changes after it is what watchOrders returns
        if (m.type === 'update') this.put(client, 'orders', rows.map((o) => this.wsOrder(o)));
        return;
      case 'fills':
        return this.put(client, 'fills', rows.map((f) => this.wsFill(f)));
      case 'balances':
        for (const b of rows) {
          if (b.account === 'futures') this.futuresRows[String(b.id)] = b;
          else this.walletRows[String(b.currencyCode)] = b;
        }
        return this.put(client, 'balances', [...new Set(rows.map((b) => (b.account === 'futures' ? 'futures' : 'wallet')))]);
      case 'positions':
        return this.put(client, 'positions', rows.map((p) => this.parsePosition(p)));
    }
  }

  private wsOrder(o: Dict): Order {
    return o.kind === 'futures' ? this.parseFuturesOrder(o) : this.parseSpotOrder(o);
  }

  /** A fill frame `{tradeId, orderId, kind, currencyPairCode, side, price, amount, fee, feeCurrency, liquidity, timestamp}`. */
  private wsFill(f: Dict): Trade {
    const market = this.marketOf(f.currencyPairCode as string, f.kind as string);
    const timestamp = this.parse8601(f.timestamp as string);
    return this.safeTrade({
      id: this.safeString(f, 'tradeId'), order: this.safeString(f, 'orderId'), timestamp, datetime: this.iso8601(timestamp),
      symbol: market.symbol, type: undefined, side: f.side, takerOrMaker: f.liquidity,
      price: this.safeString(f, 'price'), amount: this.safeString(f, 'amount'), cost: undefined,
      fee: { cost: this.safeString(f, 'fee'), currency: this.safeCurrencyCode(f.feeCurrency as string) },
      info: f,
    }, market);
  }
}
