import BigNumber from 'bignumber.js';
import {
  AuthenticationError, BadSymbol, ExchangeNotAvailable, InsufficientFunds, InvalidOrder, OrderImmediatelyFillable, OrderNotFound,
  RateLimitExceeded, type MarketInterface,
} from 'ccxt';
import type { ExchangeBackend } from '../../clients/ccxt';
import { tokenFor } from '../support/harness';
import type { SpotPairDto } from '../../src/markets';
import { eventually, levels, startService, uniqueUser, type RestLevel, type RunningService } from '../support/ccxt-service';

/**
 * The ccxt class of clients/ccxt against the service running in this process: every unified
 * spot method, checked against what the REST API itself answers. Futures: ccxt-client-futures.test.ts.
 */
let svc: RunningService;
let alice: ExchangeBackend;
let bob: ExchangeBackend;
const aliceId = uniqueUser('alice');
const bobId = uniqueUser('bob');
const SYMBOL = 'BTC/USDT';

interface RestBook {
  bids: RestLevel[];
  asks: RestLevel[];
}

const dec = (v: BigNumber.Value) => new BigNumber(v);
/** A fee as the exchange collects it: rounded up to the currency's 8 decimals. */
const fee = (amount: BigNumber.Value, rate: number) => dec(amount).times(rate).decimalPlaces(8, BigNumber.ROUND_UP);

async function wallet(ex: ExchangeBackend, code: string) {
  const b = await ex.fetchBalance();
  return { free: dec(b[code].free ?? 0), used: dec(b[code].used ?? 0), total: dec(b[code].total ?? 0) };
}

beforeAll(async () => {
  svc = await startService({ worker: true });
  await svc.deposit(aliceId, 'USDT', 10000);
  await svc.deposit(aliceId, 'BTC', 1);
  await svc.deposit(bobId, 'BTC', 2);
  await svc.deposit(bobId, 'USDT', 10000);
  alice = svc.exchange(aliceId);
  bob = svc.exchange(undefined, { token: tokenFor(bobId) }); // the JWT as ccxt's `token` credential
});
afterAll(async () => svc?.close());

describe('ccxt client, spot', () => {
  let pair: SpotPairDto;

  it('fetchMarkets lists every spot and futures pair of the REST API, with its digits, minimums and fees', async () => {
    const spot = await svc.rest<SpotPairDto[]>('GET', '/api/currencies/pairs');
    const futures = await svc.rest<Record<string, unknown>[]>('GET', '/api/futures/exchange-data/pairs');
    const markets = await alice.loadMarkets(true);
    const spotSymbols = spot.map((p) => `${p.baseCurrencyCode}/${p.quoteCurrencyCode}`);
    const futuresSymbols = futures.map((p) => {
      const [b, q] = String(p['\u0441urrencyPairCode']).split('_');
      return `${b}/${q}:${q}`;
    });
    expect(Object.keys(markets).sort()).toEqual([...spotSymbols, ...futuresSymbols].sort());

    pair = spot.find((p) => p.currencyPairCode === 'BTC_USDT') as SpotPairDto;
    const m = markets[SYMBOL] as MarketInterface;
    expect(m).toMatchObject({ id: 'BTC_USDT', type: 'spot', spot: true, base: 'BTC', quote: 'USDT' });
    expect(m.precision).toEqual({ price: 10 ** -pair.digitsPrice, amount: 10 ** -pair.digitsAmount, base: undefined, quote: undefined, cost: undefined });
    expect(m.limits.amount?.min).toBe(pair.minBaseAmount);
    expect(m.limits.cost?.min).toBe(pair.minQuoteAmount);
    expect([m.maker, m.taker]).toEqual([pair.makerFee, pair.takerFee]);
    // a currency code with a dot is kept whole
    expect(markets['BTC/USDT.TRC20']?.quote).toBe('USDT.TRC20');
    const currencies = await svc.rest<{ code: string }[]>('GET', '/api/currencies');
    expect(Object.keys(alice.currencies).sort()).toEqual(currencies.map((c) => c.code).sort());
  });

  it('fetchBalance reads the wallet the admin credited', async () => {
    const usdt = await wallet(alice, 'USDT');
    expect([usdt.free.toNumber(), usdt.used.toNumber(), usdt.total.toNumber()]).toEqual([10000, 0, 10000]);
    expect((await wallet(bob, 'BTC')).free.toNumber()).toBe(2);
  });

  it('a limit order is created, fetched back, listed as open, shown in the book, and cancelled', async () => {
    const clientOrderId = uniqueUser('cid');
    const order = await alice.createOrder(SYMBOL, 'limit', 'buy', 0.5, 100, { clientOrderId });
    expect(order).toMatchObject({ symbol: SYMBOL, type: 'limit', side: 'buy', price: 100, amount: 0.5, filled: 0, remaining: 0.5, status: 'open', clientOrderId, timeInForce: 'GTC' });

    const fetched = await alice.fetchOrder(order.id as string, SYMBOL);
    expect(fetched).toMatchObject({ id: order.id, status: 'open', clientOrderId });
    expect((await alice.fetchOrder(order.id as string)).id).toBe(order.id);
    expect((await alice.fetchOpenOrders(SYMBOL)).map((o) => o.id)).toContain(order.id);

    const usdt = await wallet(alice, 'USDT');
    expect(usdt.used.toNumber()).toBe(50);
    expect(usdt.free.toNumber()).toBe(10000 - 50);

    const book = await alice.fetchOrderBook(SYMBOL);
    const rest = await svc.rest<RestBook>('GET', '/api/orderbook/BTC_USDT');
    expect(book.bids).toEqual(levels(rest.bids));
    expect(book.asks).toEqual(levels(rest.asks));
    expect(book.bids).toContainEqual([100, 0.5]);

    const cancelled = await alice.cancelOrder(order.id as string, SYMBOL);
    expect(cancelled).toMatchObject({ id: order.id, status: 'canceled' });
    expect((await alice.fetchOpenOrders(SYMBOL)).map((o) => o.id)).not.toContain(order.id);
    expect((await wallet(alice, 'USDT')).free.toNumber()).toBe(10000);
    await expect(alice.cancelOrder(order.id as string, SYMBOL)).rejects.toBeInstanceOf(OrderNotFound);
  });

  it('a crossing pair trades once: fetchTrades, fetchMyTrades of both sides, balances by the exact amounts', async () => {
    const before = {
      aBtc: await wallet(alice, 'BTC'), aUsdt: await wallet(alice, 'USDT'),
      bBtc: await wallet(bob, 'BTC'), bUsdt: await wallet(bob, 'USDT'),
    };
    const maker = await alice.createOrder(SYMBOL, 'limit', 'buy', 0.3, 101);
    const taker = await bob.createOrder(SYMBOL, 'limit', 'sell', 0.2, 100);
    const quote = dec(101).times(0.2);
    expect(taker).toMatchObject({ status: 'closed', filled: 0.2, average: 101, cost: quote.toNumber() });
    expect(taker.fee).toEqual({ cost: fee(quote, pair.takerFee).toNumber(), currency: 'USDT' });

    const [mine] = await alice.fetchMyTrades(SYMBOL);
    expect(mine).toMatchObject({ order: maker.id, side: 'buy', takerOrMaker: 'maker', price: 101, amount: 0.2, cost: quote.toNumber() });
    expect(mine.fee).toEqual({ cost: fee(0.2, pair.makerFee).toNumber(), currency: 'BTC' });
    const [theirs] = await bob.fetchMyTrades(SYMBOL);
    expect(theirs).toMatchObject({ id: mine.id, order: taker.id, side: 'sell', takerOrMaker: 'taker', price: 101, amount: 0.2 });
    expect(theirs.fee).toEqual({ cost: fee(quote, pair.takerFee).toNumber(), currency: 'USDT' });
    const publicTrade = (await alice.fetchTrades(SYMBOL)).find((t) => t.id === mine.id);
    expect(publicTrade).toMatchObject({ symbol: SYMBOL, price: 101, amount: 0.2, side: 'sell' });
    expect(await alice.fetchMyTrades(SYMBOL, Date.now() + 60_000)).toEqual([]);

    const aBtc = await wallet(alice, 'BTC');
    const aUsdt = await wallet(alice, 'USDT');
    expect(aBtc.total.toFixed()).toBe(before.aBtc.total.plus(0.2).minus(fee(0.2, pair.makerFee)).toFixed());
    expect(aUsdt.used.toFixed()).toBe(dec(101).times(0.1).toFixed()); // the rest of the bid stays reserved
    expect(aUsdt.total.toFixed()).toBe(before.aUsdt.total.minus(quote).toFixed());
    expect((await wallet(bob, 'BTC')).total.toFixed()).toBe(before.bBtc.total.minus(0.2).toFixed());
    expect((await wallet(bob, 'USDT')).total.toFixed()).toBe(before.bUsdt.total.plus(quote).minus(fee(quote, pair.takerFee)).toFixed());
  });

  it('fetchOHLCV returns the candle the worker folded the trade into', async () => {
    const candles = await eventually(() => alice.fetchOHLCV(SYMBOL, '1m'), (c) => c.length > 0);
    const rest = await svc.rest<{ openTimestamp: string; volumeBase: number }[]>(
      'GET', '/api/futures/exchange-data/candles?CurrencyPair=BTC_USDT&Kind=spot&CandleTimePeriod=60',
    );
    expect(candles).toHaveLength(rest.length);
    expect(candles[0]).toEqual([Date.parse(rest[0].openTimestamp), 101, 101, 101, 101, rest[0].volumeBase]);
    expect(candles[0][5]).toBe(0.2);
  });

  // after the candle test: the 24 h volume is summed from the candles the worker folds
  it('fetchTicker shows the last trade, its volume and the best bid of the book', async () => {
    const ticker = await alice.fetchTicker(SYMBOL);
    const rest = await svc.rest<RestBook>('GET', '/api/orderbook/BTC_USDT');
    expect(ticker).toMatchObject({ symbol: SYMBOL, last: 101, bid: rest.bids[0].price, baseVolume: 0.2 });
    expect(ticker.ask).toBeUndefined();
    expect(Object.keys(await alice.fetchTickers())).toContain(SYMBOL);
  });

  it('market orders: a buy spends a quote amount (cost, or amount × price), a sell sells an amount', async () => {
    await bob.createOrder(SYMBOL, 'limit', 'sell', 0.1, 105);
    const byCost = await alice.createMarketBuyOrderWithCost(SYMBOL, 5.25);
    expect(byCost).toMatchObject({ type: 'market', side: 'buy', status: 'closed', filled: 0.05, average: 105, cost: 5.25 });
    const byPrice = await alice.createOrder(SYMBOL, 'market', 'buy', 0.02, 105);
    expect(byPrice).toMatchObject({ status: 'closed', filled: 0.02, cost: 2.1 });
    await expect(alice.createOrder(SYMBOL, 'market', 'buy', 0.01)).rejects.toBeInstanceOf(InvalidOrder);
    const sell = await bob.createOrder(SYMBOL, 'market', 'sell', 0.05);
    expect(sell).toMatchObject({ type: 'market', side: 'sell', status: 'closed', filled: 0.05, average: 101 });
  });

  it('post-only: one that would take is refused, one that rests is open; cancelAllOrders clears the market', async () => {
    await expect(alice.createOrder(SYMBOL, 'limit', 'buy', 0.01, 106, { postOnly: true })).rejects.toBeInstanceOf(OrderImmediatelyFillable);
    const resting = await alice.createOrder(SYMBOL, 'limit', 'buy', 0.02, 99, { postOnly: true });
    expect(resting).toMatchObject({ status: 'open', postOnly: true, timeInForce: 'GTC' });
    const open = (await alice.fetchOpenOrders(SYMBOL)).map((o) => o.id).sort();
    expect(open).toContain(resting.id);
    const cancelled = await alice.cancelAllOrders(SYMBOL);
    expect(cancelled.map((o) => o.id).sort()).toEqual(open);
    expect(await alice.fetchOpenOrders(SYMBOL)).toEqual([]);
    const closed = await alice.fetchClosedOrders(SYMBOL);
    expect(closed.map((o) => o.id)).toEqual(expect.arrayContaining(open));
  });

  it('errors come back as ccxt errors: unknown order, insufficient funds, bad input, no or bad token', async () => {
    await expect(alice.fetchOrder('999999999', SYMBOL)).rejects.toBeInstanceOf(OrderNotFound);
    await expect(alice.cancelOrder('999999999', SYMBOL)).rejects.toBeInstanceOf(OrderNotFound);
    await expect(alice.createOrder(SYMBOL, 'limit', 'buy', 1000, 100)).rejects.toBeInstanceOf(InsufficientFunds);
    await expect(alice.createOrder(SYMBOL, 'limit', 'buy', pair.minBaseAmount / 10, 100)).rejects.toBeInstanceOf(InvalidOrder);
    await expect(alice.fetchOrderBook('NOPE/USDT')).rejects.toBeInstanceOf(BadSymbol);
    await expect(svc.exchange().fetchBalance()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(svc.exchange(undefined, { apiKey: 'not.a.jwt' }).fetchBalance()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('ccxt client, a service under its limits', () => {
  let limited: RunningService;
  beforeAll(async () => {
    limited = await startService({ env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '1' } });
  });
  afterAll(async () => limited?.close());

  it('a 429 is RateLimitExceeded and a 503 (storage unreachable) is ExchangeNotAvailable', async () => {
    const user = uniqueUser('carol');
    await limited.deposit(user, 'USDT', 1000);
    const ex = limited.exchange(user, { enableRateLimit: false });
    await ex.loadMarkets();
    // eight placements at once against one a second and a burst of one: even across a second's
    // boundary at most three get through
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => ex.createOrder(SYMBOL, 'limit', 'buy', 0.01, 100)),
    );
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(refused.length).toBeGreaterThanOrEqual(5);
    for (const err of refused) expect(err).toBeInstanceOf(RateLimitExceeded);

    limited.cutRedis();
    await expect(ex.fetchBalance()).rejects.toBeInstanceOf(ExchangeNotAvailable);
  });
});
