import type { Dict, Exchange, OHLCV } from 'ccxt';
import type { ExchangeBackend } from '../../clients/ccxt';
import {
  checkAscending, checkBalance, checkCurrency, checkMarket, checkOHLCV, checkOrder, checkOrderBook, checkPosition, checkTicker, checkTrade,
} from '../support/ccxt-validators';
import { eventually, startService, uniqueUser, type RunningService } from '../support/ccxt-service';

/**
 * CCXT's unified structures (its own validators' rules, test/support/ccxt-validators.ts) on what
 * every REST and every watch method of clients/ccxt returns, spot and futures, against the
 * service in this process (api, worker and ws roles).
 */
let svc: RunningService;
let alice: ExchangeBackend;
let bob: ExchangeBackend;
const aliceId = uniqueUser('alice');
const bobId = uniqueUser('bob');
const SPOT = 'BTC/USDT';
const PERP = 'BTC/USDT:USDT';
type Entry = Record<string, unknown>;
const asEntry = (x: unknown) => x as Entry;
const ex = () => alice as unknown as Exchange;

/** Resolves with the watch's first answer that `done` accepts, calling it again until then. */
async function watchUntil<T>(label: string, watch: () => Promise<T>, done: (v: T) => boolean = () => true, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${label}: nothing within ${ms} ms`)), Math.max(1, end - Date.now()));
    });
    const v = await Promise.race([watch(), late]).finally(() => clearTimeout(timer));
    if (done(v)) return v;
  }
}

beforeAll(async () => {
  svc = await startService({ worker: true, ws: true });
  for (const user of [aliceId, bobId]) {
    await svc.deposit(user, 'USDT', 100_000);
    await svc.deposit(user, 'BTC', 10);
    const a = await svc.rest<{ id: number }>('POST', '/api/futures/accounts', user, { name: 'main', currencyCode: 'USDT', leverage: 10 });
    await svc.rest('POST', '/api/wallet/transfer', user, { fromFuturesAccountId: null, toFuturesAccountId: a.id, currencyCode: 'USDT', amount: 10_000 });
  }
  await svc.rest('POST', '/api/admin/index-price', 'admin', { currencyPairCode: 'BTC_USDT', price: 100 });
  alice = svc.exchange(aliceId);
  bob = svc.exchange(bobId);
  await Promise.all([alice.loadMarkets(), bob.loadMarkets()]);
});
afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close()]);
  await svc?.close();
});

describe('ccxt unified structures, REST', () => {
  it('fetchMarkets: every spot and futures market; futures with taker/maker and subType linear', async () => {
    const markets = await alice.fetchMarkets();
    for (const m of markets) checkMarket(ex(), asEntry(m));
    for (const c of Object.values(await alice.fetchCurrencies())) checkCurrency(ex(), asEntry(c));
    const perp = markets.find((m) => m.symbol === PERP)!;
    const pairs = await svc.rest<Dict[]>('GET', '/api/futures/exchange-data/pairs');
    const row = pairs.find((p) => p['\u0441urrencyPairCode'] === 'BTC_USDT')!;
    expect([perp.taker, perp.maker, perp.subType]).toEqual([row.takerFee, row.makerFee, 'linear']);
  });

  for (const [symbol, kind] of [[SPOT, 'spot'], [PERP, 'futures']] as const) {
    it(`${kind}: orders, trades, book, ticker, OHLCV and balance pass, every list oldest first`, async () => {
      const placed = [];
      for (const price of [90, 91, 92]) placed.push(await alice.createOrder(symbol, 'limit', 'buy', 1, price));
      const resting = await alice.createOrder(symbol, 'limit', 'sell', 1, 130);
      const maker = await alice.createOrder(symbol, 'limit', 'sell', 2, 101);
      const taker = await bob.createOrder(symbol, 'market', 'buy', 1, 101);
      for (const o of [...placed, resting, maker, taker]) checkOrder(ex(), asEntry(o), symbol);
      checkOrder(ex(), asEntry(await alice.fetchOrder(maker.id as string, symbol)), symbol);

      const lists = {
        fetchOrders: await alice.fetchOrders(symbol),
        fetchOpenOrders: await alice.fetchOpenOrders(symbol),
        fetchClosedOrders: await bob.fetchClosedOrders(symbol),
      };
      for (const [name, list] of Object.entries(lists)) {
        expect(list.length).toBeGreaterThan(0);
        for (const o of list) checkOrder(ex(), asEntry(o), symbol);
        checkAscending(name, list);
      }
      expect(lists.fetchOpenOrders.map((o) => o.id)).toEqual([...placed.map((o) => o.id), resting.id, maker.id]);

      const trades = await alice.fetchTrades(symbol);
      const mine = await bob.fetchMyTrades(symbol);
      for (const t of [...trades, ...mine]) checkTrade(ex(), asEntry(t), symbol);
      checkAscending('fetchTrades', trades);
      checkAscending('fetchMyTrades', mine);
      expect(mine.length).toBeGreaterThan(0);

      checkOrderBook(ex(), asEntry(await alice.fetchOrderBook(symbol)), symbol);
      checkTicker(ex(), asEntry(await alice.fetchTicker(symbol)), symbol);
      for (const t of Object.values(await alice.fetchTickers(undefined, { type: kind === 'spot' ? 'spot' : 'swap' }))) checkTicker(ex(), asEntry(t));
      const candles = await eventually(() => alice.fetchOHLCV(symbol, '1m'), (c) => c.length > 0);
      candles.forEach((c) => checkOHLCV(c));
      checkAscending('fetchOHLCV', candles.map((c: OHLCV) => ({ timestamp: c[0] as number })));
      checkBalance(ex(), asEntry(await alice.fetchBalance(kind === 'spot' ? {} : { type: 'swap' })));
      checkOrder(ex(), asEntry(await alice.cancelOrder(resting.id as string, symbol)), symbol);
    });
  }

  it('fetchPositions: every field ccxt wants, with a value; oldest first', async () => {
    await bob.createOrder(PERP, 'limit', 'sell', 1, 100);
    await bob.createOrder(PERP, 'limit', 'sell', 1, 100);
    await alice.createOrder(PERP, 'market', 'buy', 2, 100);
    const positions = await alice.fetchPositions([PERP]);
    expect(positions.length).toBeGreaterThanOrEqual(2);
    for (const p of positions) {
      checkPosition(ex(), asEntry(p), PERP);
      for (const k of ['initialMarginPercentage', 'maintenanceMarginPercentage', 'marginRatio', 'notional', 'markPrice'] as const) {
        expect(p[k]).toEqual(expect.any(Number));
      }
      // the pair's own rates
      expect(p.initialMarginPercentage).toBe(0.1);
      expect(p.maintenanceMarginPercentage).toBe(0.005);
      expect(p.notional).toBeCloseTo((p.contracts as number) * (p.markPrice as number), 8);
    }
    checkAscending('fetchPositions', positions);
    // a limit close (it rests: nobody bids here)
    checkOrder(ex(), asEntry(await alice.closePosition(PERP, undefined, { price: 150 })), PERP);
  });

  it('cancelAllOrders answers unified orders, spot and futures', async () => {
    for (const symbol of [SPOT, PERP]) {
      await alice.createOrder(symbol, 'limit', 'buy', 1, 50);
      const cancelled = await alice.cancelAllOrders(symbol);
      expect(cancelled.length).toBeGreaterThan(0);
      for (const o of cancelled) checkOrder(ex(), asEntry(o), symbol);
    }
  });
});

describe('ccxt unified structures, watch', () => {
  for (const [symbol, kind] of [[SPOT, 'spot'], [PERP, 'futures']] as const) {
    it(`${kind}: watchOrderBook, watchTrades, watchTicker, watchOHLCV on the market-data socket`, async () => {
      const first = await watchUntil('watchOrderBook', () => alice.watchOrderBook(symbol));
      checkOrderBook(ex(), asEntry(first), symbol);
      const nonce = first.nonce as number;
      const ticker = watchUntil('watchTicker', () => alice.watchTicker(symbol), (t) => t.last !== undefined);
      const trades = watchUntil('watchTrades', () => alice.watchTrades(symbol));
      const candles = watchUntil('watchOHLCV', () => alice.watchOHLCV(symbol, '1m'));
      // let the subscriptions land before the trade they are to see
      await new Promise((r) => setTimeout(r, 300));
      await alice.createOrder(symbol, 'limit', 'sell', 1, 120);
      await bob.createOrder(symbol, 'limit', 'buy', 1, 120);
      // the book watchOrderBook keeps, updated since (the updates may have come before this line)
      const built = alice.orderbooks[symbol];
      await eventually(async () => built.nonce as number, (n) => n > nonce, 10_000);
      checkOrderBook(ex(), asEntry(built), symbol);
      // is the book REST reads
      const rest = await alice.fetchOrderBook(symbol, 1000);
      await eventually(async () => (built.bids as number[][]).map((l) => [...l]), (b) => JSON.stringify(b) === JSON.stringify(rest.bids), 5000);
      expect((built.asks as number[][]).map((l) => [...l])).toEqual(rest.asks);
      for (const t of await trades) checkTrade(ex(), asEntry(t), symbol);
      checkTicker(ex(), asEntry(await ticker), symbol);
      for (const c of await candles) checkOHLCV(c);
    });
  }

  it('watchOrders, watchMyTrades, watchBalance, watchPositions on the private stream, spot and futures', async () => {
    const orders = watchUntil('watchOrders', () => alice.watchOrders(), (os) => os.some((o) => o.symbol === PERP));
    const fills = watchUntil('watchMyTrades', () => alice.watchMyTrades(), (ts) => ts.some((t) => t.symbol === PERP));
    const positions = watchUntil('watchPositions', () => alice.watchPositions());
    const wallet = watchUntil('watchBalance', () => alice.watchBalance());
    const futures = watchUntil('watchBalance swap', () => alice.watchBalance({ type: 'swap' }));
    await new Promise((r) => setTimeout(r, 500));
    await alice.createOrder(SPOT, 'limit', 'sell', 1, 140);
    await bob.createOrder(SPOT, 'market', 'buy', 1, 140);
    await alice.createOrder(PERP, 'limit', 'buy', 1, 99);
    await bob.createOrder(PERP, 'market', 'sell', 1, 99);
    for (const o of await orders) checkOrder(ex(), asEntry(o));
    for (const t of await fills) checkTrade(ex(), asEntry(t));
    for (const p of await positions) checkPosition(ex(), asEntry(p));
    for (const b of [await wallet, await futures]) checkBalance(ex(), asEntry(b));
    // what the stream said is what REST says
    const restWallet = await alice.fetchBalance();
    const streamed = await watchUntil('watchBalance', () => alice.watchBalance(), (b) => b.USDT?.free === restWallet.USDT.free);
    expect(streamed.USDT).toEqual(restWallet.USDT);
  });

  it('has: the watch methods that work are true, order entry over a socket false', () => {
    for (const m of ['watchOrderBook', 'watchTrades', 'watchTicker', 'watchOHLCV', 'watchOrders', 'watchMyTrades', 'watchBalance', 'watchPositions']) {
      expect([m, alice.has[m]]).toEqual([m, true]);
    }
    for (const m of ['createOrderWs', 'cancelOrderWs', 'editOrderWs', 'cancelAllOrdersWs', 'fetchBalanceWs']) expect([m, alice.has[m]]).toEqual([m, false]);
  });
});
