import request from 'supertest';
import type { Express } from 'express';
import BigNumber from 'bignumber.js';
import type { MarketKind } from '../../../src/platform/redis/keys';
import { parseEntry } from '../../../src/platform/market-event';
import { createApp, testContext } from '../../support/harness';
import { bedFor } from '../futures/helpers';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

interface Fill {
  price: number;
  qty: number;
  taker: 'buy' | 'sell';
}
/** The spot BTC_USDT trades this file makes, oldest first: maker order, then the taker that meets it. */
const FILLS: Fill[] = [
  { price: 100, qty: 1, taker: 'buy' },
  { price: 105, qty: 0.5, taker: 'buy' },
  { price: 98, qty: 2, taker: 'sell' },
  { price: 101.5, qty: 0.125, taker: 'buy' },
];
/**
 * Older BTC_USDT trades, folded straight into the candles as the worker would have folded them: two
 * inside the 24 h window (in other minutes than the fills above) and one just outside it.
 */
const HISTORY = [
  { minutesAgo: 24 * 60 + 5, price: 50, qty: 10 },
  { minutesAgo: 23 * 60 + 50, price: 120, qty: 0.1 },
  { minutesAgo: 90, price: 97, qty: 0.3 },
];
const IN_WINDOW = [...HISTORY.filter((h) => h.minutesAgo < 24 * 60), ...FILLS];
/** Resting spot orders after the fills: the book. */
const RESTING = [
  { side: 'sell', price: 110, amount: 3 },
  { side: 'sell', price: 112, amount: 1 },
  { side: 'buy', price: 95, amount: 1.5 },
  { side: 'buy', price: 94, amount: 1 },
  { side: 'buy', price: 93, amount: 0.25 },
] as const;

const sum = (xs: BigNumber[]) => xs.reduce((a, b) => a.plus(b), new BigNumber(0));
const expected = {
  last: FILLS[FILLS.length - 1].price,
  high: Math.max(...IN_WINDOW.map((f) => f.price)),
  low: Math.min(...IN_WINDOW.map((f) => f.price)),
  base: sum(IN_WINDOW.map((f) => new BigNumber(f.qty))),
  quote: sum(IN_WINDOW.map((f) => new BigNumber(f.price).times(f.qty))),
  change: new BigNumber(FILLS[FILLS.length - 1].price).minus(IN_WINDOW[0].price).div(IN_WINDOW[0].price).times(100),
  bid: Math.max(...RESTING.filter((o) => o.side === 'buy').map((o) => o.price)),
  ask: Math.min(...RESTING.filter((o) => o.side === 'sell').map((o) => o.price)),
};

const FUT_LONG = 0.5;
const FUT_PRICE = 100;

const spot = (user: string, side: 'buy' | 'sell', price: number, amount: number) =>
  ctx.spot.orders.place(user, { currencyPairCode: 'BTC_USDT', side, type: 'limit', price, amount });

/** What the candles worker does for every stream entry: fold its trades into the candles. */
async function foldCandles(kind: MarketKind, pair: string) {
  for (const [id, fields] of await ctx.redis.xrange(ctx.keys.events(kind, pair), '-', '+')) {
    await ctx.marketData.candles.apply(kind, pair, parseEntry(id, fields));
  }
}

const get = (path: string) => request(app).get(path);
/** The operator's BTC_USDT index, futures ticks (one decimal). */
const INDEX_TICKS = 1012;

function expectNotFound(r: request.Response) {
  expect(r.status).toBe(404);
  expect(r.body).toEqual({ error: { code: 'PAIR_NOT_FOUND', message: expect.any(String), details: [] } });
}
function expectBadRequest(r: request.Response) {
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('VALIDATION_FAILED');
  expect(r.body.error.details.length).toBeGreaterThan(0);
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  for (const u of ['alice', 'bob']) {
    await ctx.wallets.deposit(u, 'USDT', 1_000_000);
    await ctx.wallets.deposit(u, 'BTC', 100);
  }
  for (const f of FILLS) {
    const maker = f.taker === 'buy' ? 'sell' : 'buy';
    await spot('alice', maker, f.price, f.qty);
    const taker = await spot('bob', f.taker, f.price, f.qty);
    expect(taker.order.status).toBe('filled');
  }
  for (const o of RESTING) await spot(o.side === 'sell' ? 'alice' : 'bob', o.side, o.price, o.amount);

  const bed = bedFor(ctx, app);
  const long = await bed.fundedAccount('flong');
  const short = await bed.fundedAccount('fshort');
  await bed.order('flong', long, true, FUT_PRICE, FUT_LONG);
  await bed.order('fshort', short, false, null, FUT_LONG);
  await bed.order('flong', long, true, 99, 0.2);
  await bed.order('fshort', short, false, 101.5, 0.3);
  // the operator's index: the spot book here is too thin to count as a source (docs/futures.md)
  await ctx.futures.prices.recordIndexSource((await ctx.markets.store.getPair('futures', 'BTC_USDT'))!, 'admin', String(INDEX_TICKS));

  await foldCandles('spot', 'BTC_USDT');
  for (const [i, h] of HISTORY.entries()) {
    const ts = Date.now() - h.minutesAgo * 60_000;
    await ctx.marketData.candles.apply('spot', 'BTC_USDT', {
      id: `${ts}-${900 + i}`, ts,
      events: [{
        e: 'trade', id: String(9000 + i), p: String(Math.round(h.price * 100)), q: String(Math.round(h.qty * 1e6)), side: 'buy',
        tk: '1', mk: '2', tu: 'x', mu: 'y', tf: '0', mf: '0',
      }],
    });
  }
  await foldCandles('futures', 'BTC_USDT');
});
afterAll(async () => ctx.cleanup());

describe('aggregator A, spot (CoinGecko standard)', () => {
  it('pairs lists every spot pair with ticker_id, base, target and pool_id', async () => {
    const [r, pairs] = await Promise.all([get('/api/marketdata/aggregator-a/pairs'), get('/api/currencies/pairs')]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(
      pairs.body.map((p: { currencyPairCode: string; baseCurrencyCode: string; quoteCurrencyCode: string }) => ({
        ticker_id: p.currencyPairCode, base: p.baseCurrencyCode, target: p.quoteCurrencyCode, pool_id: expect.any(String),
      })),
    );
  });

  it('tickers carry the 24 h statistics of the trades made, as decimal strings', async () => {
    const r = await get('/api/marketdata/aggregator-a/tickers');
    expect(r.status).toBe(200);
    const btc = r.body.find((t: { ticker_id: string }) => t.ticker_id === 'BTC_USDT');
    expect(btc).toEqual({
      ticker_id: 'BTC_USDT', base_currency: 'BTC', target_currency: 'USDT', pool_id: expect.any(String),
      last_price: String(expected.last), base_volume: expected.base.toFixed(), target_volume: expected.quote.toFixed(),
      bid: String(expected.bid), ask: String(expected.ask), high: String(expected.high), low: String(expected.low),
    });
    const eth = r.body.find((t: { ticker_id: string }) => t.ticker_id === 'ETH_USDT');
    expect(eth).toMatchObject({ last_price: '0', base_volume: '0', target_volume: '0', bid: '0', ask: '0', high: '0', low: '0' });
  });

  it('orderbook matches GET /api/orderbook as [price, qty] strings, depth halved per side, 0 = full', async () => {
    const book = (await get('/api/orderbook/BTC_USDT?depth=1000')).body;
    const asStrings = (levels: { price: number; quantity: number }[]) => levels.map((l) => [String(l.price), String(l.quantity)]);
    const before = Date.now();
    const full = await get('/api/marketdata/aggregator-a/orderbook?ticker_id=BTC_USDT&depth=0');
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ ticker_id: 'BTC_USDT', timestamp: expect.any(Number), bids: asStrings(book.bids), asks: asStrings(book.asks) });
    expect(full.body.timestamp).toBeGreaterThanOrEqual(before);
    expect(full.body.bids).toHaveLength(3);

    const two = await get('/api/marketdata/aggregator-a/orderbook?TICKER_ID=BTC_USDT&depth=2');
    expect(two.body.bids).toEqual(asStrings(book.bids).slice(0, 1));
    expect(two.body.asks).toEqual(asStrings(book.asks).slice(0, 1));
    const four = await get('/api/marketdata/aggregator-a/orderbook?ticker_id=BTC_USDT&depth=4');
    expect(four.body.bids).toEqual(asStrings(book.bids).slice(0, 2));

    const all = await get('/api/marketdata/aggregator-a/orderbook');
    expect(all.status).toBe(200);
    expect(all.body.map((b: { ticker_id: string }) => b.ticker_id)).toEqual(['BTC_USDT', 'ETH_USDT', 'BTC_USDT.TRC20']);
  });

  it('orderbook: unknown ticker is 404, bad depth 400', async () => {
    expectNotFound(await get('/api/marketdata/aggregator-a/orderbook?ticker_id=NOPE_USDT'));
    expectBadRequest(await get('/api/marketdata/aggregator-a/orderbook?ticker_id=BTC_USDT&depth=-2'));
    expectBadRequest(await get('/api/marketdata/aggregator-a/orderbook?ticker_id=BTC_USDT&depth=ten'));
  });

  it('historical_trades splits the trades made into buy and sell, newest first, with type, limit and times', async () => {
    const r = await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT');
    expect(r.status).toBe(200);
    const shape = (f: Fill) => ({
      trade_id: expect.any(Number), price: String(f.price), base_volume: String(f.qty),
      target_volume: new BigNumber(f.price).times(f.qty).toFixed(), trade_timestamp: expect.any(Number), type: f.taker,
    });
    const newest = [...FILLS].reverse();
    expect(r.body).toEqual({
      buy: newest.filter((f) => f.taker === 'buy').map(shape),
      sell: newest.filter((f) => f.taker === 'sell').map(shape),
    });
    const ts = r.body.buy[0].trade_timestamp;
    expect(Math.abs(ts - Date.now())).toBeLessThan(60_000);

    const sells = await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&type=sell');
    expect(sells.body).toEqual({ buy: [], sell: [shape(FILLS[2])] });
    const one = await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=1');
    expect(one.body).toEqual({ buy: [shape(FILLS[3])], sell: [] });

    const future = new Date(Date.now() + 3_600_000).toISOString();
    const none = await get(`/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&start_time=${future}`);
    expect(none.body).toEqual({ buy: [], sell: [] });
    const seconds = Math.floor(Date.now() / 1000) - 3600;
    const since = await get(`/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&start_time=${seconds}&end_time=${Date.now() + 1000}`);
    expect(since.body.buy).toHaveLength(3);

    const everyPair = await get('/api/marketdata/aggregator-a/historical_trades');
    expect(everyPair.body.buy.every((t: { ticker_id: string }) => t.ticker_id === 'BTC_USDT')).toBe(true);
    expect(everyPair.body.buy).toHaveLength(3);
  });

  it('historical_trades: unknown ticker is 404, bad type, limit or range 400', async () => {
    expectNotFound(await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=NOPE_USDT'));
    expectBadRequest(await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&type=hold'));
    expectBadRequest(await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=-1'));
    const r = await get('/api/marketdata/aggregator-a/historical_trades?start_time=2030-01-02T00:00:00Z&end_time=2030-01-01T00:00:00Z');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_DATE_RANGE');
  });
});

describe('aggregator B, spot (CoinMarketCap specification)', () => {
  const B = '/api/marketdata/getaggregatorb';

  it('the root indexes the endpoints and the trading pairs', async () => {
    const r = await get(B);
    expect(r.status).toBe(200);
    expect(r.body.trading_pairs).toEqual(['BTC_USDT', 'ETH_USDT', 'BTC_USDT.TRC20']);
    expect(r.body.endpoints).toEqual({
      summary: `${B}/summary`, asset: `${B}/asset`, ticker: `${B}/ticker`,
      orderbook: `${B}/orderbook/{market_pair}`, trades: `${B}/trades/{market_pair}`,
    });
  });

  it('summary carries the 24 h statistics of the trades made, as numbers', async () => {
    const r = await get(`${B}/summary`);
    expect(r.status).toBe(200);
    expect(r.body.find((s: { trading_pairs: string }) => s.trading_pairs === 'BTC_USDT')).toEqual({
      trading_pairs: 'BTC_USDT', base_currency: 'BTC', quote_currency: 'USDT', last_price: expected.last,
      lowest_ask: expected.ask, highest_bid: expected.bid, base_volume: expected.base.toNumber(),
      quote_volume: expected.quote.toNumber(), price_change_percent_24h: expected.change.toNumber(),
      highest_price_24h: expected.high, lowest_price_24h: expected.low,
    });
  });

  it('asset maps every currency code to its record', async () => {
    const [r, currencies] = await Promise.all([get(`${B}/asset`), get('/api/currencies')]);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(currencies.body.map((c: { code: string }) => c.code).sort());
    expect(r.body.BTC).toEqual({
      name: 'Bitcoin', unified_cryptoasset_id: 1, can_withdraw: false, can_deposit: true,
      min_withdraw: 0, max_withdraw: 0, maker_fee: 0.001, taker_fee: 0.002,
    });
  });

  it('ticker maps BASE_QUOTE to ids, last price, volumes and isFrozen', async () => {
    const r = await get(`${B}/ticker`);
    expect(r.status).toBe(200);
    expect(r.body.BTC_USDT).toEqual({
      base_id: 1, quote_id: 825, last_price: expected.last, base_volume: expected.base.toNumber(),
      quote_volume: expected.quote.toNumber(), isFrozen: 0,
    });
    expect(r.body.ETH_USDT).toMatchObject({ last_price: 0, base_volume: 0, quote_volume: 0, isFrozen: 0 });
  });

  it('orderbook matches GET /api/orderbook; depth halves per side, level 1 is the top of book', async () => {
    const book = (await get('/api/orderbook/BTC_USDT?depth=1000')).body;
    const pairs = (levels: { price: number; quantity: number }[]) => levels.map((l) => [l.price, l.quantity]);
    const full = await get(`${B}/orderbook/BTC_USDT`);
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ timestamp: expect.any(Number), bids: pairs(book.bids), asks: pairs(book.asks) });
    const two = await get(`${B}/orderbook/BTC_USDT?depth=2`);
    expect(two.body).toMatchObject({ bids: pairs(book.bids).slice(0, 1), asks: pairs(book.asks).slice(0, 1) });
    const top = await get(`${B}/orderbook/BTC_USDT?level=1`);
    expect(top.body).toMatchObject({ bids: [[expected.bid, 1.5]], asks: [[expected.ask, 3]] });
  });

  it('orderbook: unknown pair is 404, bad depth or level 400', async () => {
    expectNotFound(await get(`${B}/orderbook/NOPE_USDT`));
    expectBadRequest(await get(`${B}/orderbook/BTC_USDT?depth=-1`));
    expectBadRequest(await get(`${B}/orderbook/BTC_USDT?level=4`));
  });

  it('trades lists the trades made, newest first', async () => {
    const r = await get(`${B}/trades/BTC_USDT`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(
      [...FILLS].reverse().map((f) => ({
        trade_id: expect.any(Number), price: f.price, base_volume: f.qty,
        quote_volume: new BigNumber(f.price).times(f.qty).toNumber(), timestamp: expect.any(Number), type: f.taker,
      })),
    );
    const ids = r.body.map((t: { trade_id: number }) => t.trade_id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expectNotFound(await get(`${B}/trades/NOPE_USDT`));
  });
});

describe('futures feeds (OpenAPI `ContractRecordA`/`B`, `ContractBook`)', () => {
  const NUMBER_FIELDS = [
    'last_price', 'base_volume', 'target_volume', 'bid', 'ask', 'high', 'low', 'open_interest', 'index_price',
    'mark_price', 'index_currency', 'funding_rate', 'next_funding_rate', 'next_funding_rate_timestamp', 'contract_price',
  ];
  const STRING_FIELDS = ['ticker_id', 'base_currency', 'target_currency', 'product_type', 'contract_type', 'contract_price_currency'];
  /** What each standard adds to OpenAPI `ContractRecordA`/`B` (aggregator-standards.test.ts checks them field by field). */
  const EXTRA: Record<string, Record<string, 'number' | 'string'>> = {
    'aggregator-a': { open_interest_usd: 'number', index_name: 'string' },
    'aggregator-b': {
      quote_currency: 'string', quote_volume: 'number', USD_volume: 'number', open_interest_usd: 'number',
      maker_fee: 'number', taker_fee: 'number',
    },
  };

  it.each(['aggregator-a', 'aggregator-b'])('%s contracts: a map of pair to records with every 2.16 field', async (provider) => {
    const [r, pairs] = await Promise.all([
      get(`/api/external-providers/${provider}/contracts`),
      get('/api/futures/exchange-data/pairs'),
    ]);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['BTC_USDT', 'ETH_USDT']);
    for (const [code, records] of Object.entries(r.body as Record<string, Record<string, unknown>[]>)) {
      expect(records).toHaveLength(1);
      const c = records[0];
      const extra = EXTRA[provider];
      expect(Object.keys(c).sort()).toEqual(
        [...NUMBER_FIELDS, ...STRING_FIELDS, 'start_timestamp', 'end_timestamp', ...Object.keys(extra)].sort(),
      );
      for (const f of NUMBER_FIELDS) expect(typeof c[f]).toBe('number');
      for (const f of STRING_FIELDS) expect(typeof c[f]).toBe('string');
      for (const [f, type] of Object.entries(extra)) expect(typeof c[f]).toBe(type);
      expect(Number.isInteger(c.next_funding_rate_timestamp)).toBe(true);
      expect(c.start_timestamp).toBeNull();
      expect(c.end_timestamp).toBeNull();
      expect(c.ticker_id).toBe(code);
    }
    const pairInfo = pairs.body.find((p: Record<string, unknown>) => p['сurrencyPairCode'] === 'BTC_USDT');
    expect(r.body.BTC_USDT[0]).toMatchObject({
      ticker_id: 'BTC_USDT', base_currency: 'BTC', target_currency: 'USDT',
      last_price: FUT_PRICE, base_volume: FUT_LONG, target_volume: FUT_PRICE * FUT_LONG,
      bid: 99, ask: 101.5, high: FUT_PRICE, low: FUT_PRICE,
      product_type: 'Perpetual', open_interest: FUT_LONG,
      index_price: INDEX_TICKS / 10,
      index_currency: 825,
      start_timestamp: null, end_timestamp: null,
      funding_rate: pairInfo.fundingRate, next_funding_rate: pairInfo.fundingRate,
      next_funding_rate_timestamp: Date.parse(pairInfo.fundingRateFinishTimestamp),
      contract_type: 'Vanilla', contract_price: FUT_PRICE, contract_price_currency: 'USDT',
    });
    // the stored mark, which values open interest: contractValue 1 here, so contracts and base units
    // agree; USDT counts as dollars
    const futPair = (await ctx.markets.store.getPair('futures', 'BTC_USDT'))!;
    const mark = Number(await ctx.futures.prices.markTicks(futPair)) / 10;
    expect(r.body.BTC_USDT[0].mark_price).toBe(mark);
    const openInterestUsd = FUT_LONG * mark;
    expect(r.body.BTC_USDT[0]).toMatchObject(provider === 'aggregator-a'
      ? { open_interest_usd: openInterestUsd, index_name: 'BTC_USDT' }
      : {
        quote_currency: 'USDT', quote_volume: FUT_PRICE * FUT_LONG, USD_volume: FUT_PRICE * FUT_LONG,
        open_interest_usd: openInterestUsd, maker_fee: 0.0002, taker_fee: 0.0005,
      });
  });

  it.each(['aggregator-a', 'aggregator-b'])('%s orderbook matches the futures book, selected by ticker_id, market_pair or symbol', async (provider) => {
    const base = `/api/external-providers/${provider}/orderbook`;
    const book = (await get('/api/futures/trade/orderbook/BTC_USDT?depth=1000')).body;
    const want = { ticker_id: 'BTC_USDT', timestamp: expect.any(Number), bids: book.bids, asks: book.asks };
    expect(book.bids.length).toBeGreaterThan(0);
    for (const q of ['ticker_id=BTC_USDT', 'market_pair=BTC_USDT', 'SYMBOL=BTC_USDT', 'ticker_id=BTC_USDT&depth=0']) {
      const r = await get(`${base}?${q}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(want);
    }
    const two = await get(`${base}?ticker_id=BTC_USDT&depth=2`);
    expect(two.body).toEqual({ ...want, bids: book.bids.slice(0, 1), asks: book.asks.slice(0, 1) });

    expectNotFound(await get(`${base}?ticker_id=NOPE_USDT`));
    expectBadRequest(await get(`${base}?ticker_id=BTC_USDT&depth=x`));
    expectBadRequest(await get(base));
    expectBadRequest(await get(`${base}?ticker_id=BTC_USDT&symbol=ETH_USDT`));
  });
});
