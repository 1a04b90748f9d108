import { InsufficientFunds, InvalidOrder, OrderNotFound } from 'ccxt';
import type { ExchangeBackend } from '../../clients/ccxt';
import { eventually, levels, startService, uniqueUser, type RestLevel, type RunningService } from '../support/ccxt-service';

/**
 * The ccxt class's futures methods against the service in this process (api and worker roles):
 * one order, one isolated position (docs/futures.md), each checked against the REST API.
 */
let svc: RunningService;
let alice: ExchangeBackend;
let bob: ExchangeBackend;
const aliceId = uniqueUser('alice');
const bobId = uniqueUser('bob');
const SYMBOL = 'BTC/USDT:USDT';

interface RestAccount {
  id: number;
  currencyCode: string;
  balance: number;
  available: number;
  usedMargin: number;
}
interface RestDeal {
  price: number;
  amount: number;
  fee: number;
  feeAsset: string;
  orderId: number;
  tradeType: number;
}

beforeAll(async () => {
  svc = await startService({ worker: true });
  for (const user of [aliceId, bobId]) {
    await svc.deposit(user, 'USDT', 5000);
    await svc.rest('POST', '/api/futures/accounts', user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
  }
  await svc.rest('POST', '/api/admin/index-price', 'admin', { currencyPairCode: 'BTC_USDT', price: 100 });
  alice = svc.exchange(aliceId);
  bob = svc.exchange(bobId);
  await Promise.all([alice.loadMarkets(), bob.loadMarkets()]);
});
afterAll(async () => svc?.close());

describe('ccxt client, futures', () => {
  it('transfer moves money from the wallet to the futures account; fetchBalance reads either', async () => {
    for (const ex of [alice, bob]) {
      const entry = await ex.transfer('USDT', 1000, 'spot', 'swap');
      expect(entry).toMatchObject({ currency: 'USDT', amount: 1000, fromAccount: 'spot', toAccount: 'swap', status: 'ok' });
    }
    expect((await alice.fetchBalance()).USDT.free).toBe(4000);
    const futures = await alice.fetchBalance({ type: 'swap' });
    const [account] = await svc.rest<RestAccount[]>('GET', '/api/futures/accounts', aliceId);
    expect(futures.USDT).toEqual({ free: account.available, used: account.usedMargin, total: account.balance });
    expect(account.balance).toBe(1000);
  });

  it('a limit order is created, fetched back, listed as open, shown in the book; a crossing order trades with it', async () => {
    const clientOrderId = uniqueUser('f');
    const order = await alice.createOrder(SYMBOL, 'limit', 'buy', 1, 100, { clientOrderId });
    expect(order).toMatchObject({ symbol: SYMBOL, type: 'limit', side: 'buy', price: 100, amount: 1, filled: 0, status: 'open', clientOrderId });
    expect(await alice.fetchOrder(order.id as string, SYMBOL)).toMatchObject({ id: order.id, status: 'open' });
    // without a symbol the spot lookup misses and the futures history answers
    expect((await alice.fetchOrder(order.id as string)).symbol).toBe(SYMBOL);
    expect((await alice.fetchOpenOrders(SYMBOL)).map((o) => o.id)).toContain(order.id);

    const book = await alice.fetchOrderBook(SYMBOL);
    const rest = await svc.rest<{ bids: RestLevel[]; asks: RestLevel[] }>('GET', '/api/futures/trade/orderbook/BTC_USDT');
    expect(book.bids).toEqual(levels(rest.bids));
    expect(book.asks).toEqual(levels(rest.asks));
    expect(book.bids).toContainEqual([100, 1]);

    const taker = await bob.createOrder(SYMBOL, 'limit', 'sell', 0.4, 100);
    expect(taker).toMatchObject({ side: 'sell', status: 'closed', filled: 0.4, average: 100 });
    expect(await alice.fetchOrder(order.id as string, SYMBOL)).toMatchObject({ status: 'open', filled: 0.4, remaining: 0.6 });

    const trades = await alice.fetchTrades(SYMBOL);
    expect(trades.map((t) => [t.price, t.amount, t.side])).toContainEqual([100, 0.4, 'sell']);
    for (const [ex, userId, orderId] of [[alice, aliceId, order.id], [bob, bobId, taker.id]] as const) {
      const [mine] = await ex.fetchMyTrades(SYMBOL);
      const rest = await svc.rest<{ items: RestDeal[] }>('GET', '/api/futures/deals/user?CurrencyPair=BTC_USDT', userId);
      expect(rest.items).toHaveLength(1);
      expect(mine).toMatchObject({ order: orderId, price: rest.items[0].price, amount: 0.4 });
      expect(mine.fee).toEqual({ cost: rest.items[0].fee, currency: rest.items[0].feeAsset });
      expect(mine.takerOrMaker).toBe(ex === alice ? 'maker' : 'taker');
    }
  });

  it('fetchPositions shows each side its isolated position; the futures balance equals the REST accounts', async () => {
    const [long] = await alice.fetchPositions([SYMBOL]);
    expect(long).toMatchObject({ symbol: SYMBOL, side: 'long', contracts: 0.4, entryPrice: 100, marginMode: 'isolated', leverage: 10 });
    const [short] = await bob.fetchPositions();
    expect(short).toMatchObject({ symbol: SYMBOL, side: 'short', contracts: 0.4, entryPrice: 100 });
    const accounts = await svc.rest<RestAccount[]>('GET', '/api/futures/accounts', bobId);
    const balance = await bob.fetchBalance({ type: 'swap' });
    expect(balance.USDT).toEqual({ free: accounts[0].available, used: accounts[0].usedMargin, total: accounts[0].balance });
    expect(balance.USDT.used).toBeGreaterThan(0);
  });

  it('cancelOrder cancels an unfilled order and refuses one that is a position; errors map to ccxt errors', async () => {
    const [filledInPart] = await alice.fetchOpenOrders(SYMBOL);
    await expect(alice.cancelOrder(filledInPart.id as string, SYMBOL)).rejects.toBeInstanceOf(InvalidOrder);
    const resting = await alice.createOrder(SYMBOL, 'limit', 'buy', 0.5, 90);
    expect(await alice.cancelOrder(resting.id as string)).toMatchObject({ id: resting.id, status: 'canceled' });
    expect((await alice.fetchOrder(resting.id as string, SYMBOL)).status).toBe('canceled');
    await expect(alice.cancelOrder(resting.id as string, SYMBOL)).rejects.toBeInstanceOf(OrderNotFound);
    await expect(alice.fetchOrder('999999999', SYMBOL)).rejects.toBeInstanceOf(OrderNotFound);
    await expect(alice.createOrder(SYMBOL, 'limit', 'buy', 1000, 100)).rejects.toBeInstanceOf(InsufficientFunds);
  });

  it('closePosition closes the long against a bid; the position leaves fetchPositions', async () => {
    await bob.createOrder(SYMBOL, 'limit', 'buy', 0.4, 99);
    const closed = await alice.closePosition(SYMBOL);
    expect(closed).toMatchObject({ symbol: SYMBOL, side: 'buy', status: 'closed' });
    expect(closed.info.futuresOrderStatus).toBe(20);
    expect(await alice.fetchPositions([SYMBOL])).toEqual([]);
    // closing a position drops what its order still had working
    expect(await alice.fetchOpenOrders(SYMBOL)).toEqual([]);
  });

  it('fetchOHLCV, fetchTicker and fetchFundingRate read the futures market', async () => {
    // both fills (0.4 at 100, 0.4 at 99) folded by the worker, in one candle or two
    type RestCandle = Record<'openPrice' | 'maxPrice' | 'minPrice' | 'closePrice' | 'volumeBase', number> & { openTimestamp: string };
    const rest = await eventually(
      () => svc.rest<RestCandle[]>('GET', '/api/futures/exchange-data/candles?CurrencyPair=BTC_USDT&Kind=futures&CandleTimePeriod=60'),
      (cs) => cs.reduce((v, c) => v + c.volumeBase, 0) === 0.8,
    );
    const candles = await alice.fetchOHLCV(SYMBOL, '1m');
    expect(candles).toEqual(
      rest.map((c) => [Date.parse(c.openTimestamp), c.openPrice, c.maxPrice, c.minPrice, c.closePrice, c.volumeBase]),
    );
    expect(candles[0][1]).toBe(100);
    expect(candles.at(-1)?.[4]).toBe(99);
    const contracts = await svc.rest<Record<string, Record<string, number>[]>>('GET', '/api/external-providers/aggregator-a/contracts');
    const c = contracts.BTC_USDT[0];
    const ticker = await alice.fetchTicker(SYMBOL);
    expect(ticker).toMatchObject({ symbol: SYMBOL, last: 99, indexPrice: c.index_price });
    const funding = await alice.fetchFundingRate(SYMBOL);
    expect(funding).toMatchObject({ symbol: SYMBOL, fundingRate: c.funding_rate, fundingTimestamp: c.next_funding_rate_timestamp });
  });
});
