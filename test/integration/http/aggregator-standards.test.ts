import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import type { Express } from 'express';
import BigNumber from 'bignumber.js';
import { parseEntry } from '../../../src/platform/market-event';
import type { MarketKind } from '../../../src/platform/redis/keys';
import { UsdRates } from '../../../src/feeds/usd-rates';
import { admin, bedFor } from '../futures/helpers';
import { bearer, createApp, testContext } from '../../support/harness';
import {
  A_BOOK, A_CONTRACT, A_PAIR, A_TICKER, A_TRADE, B_ASSET, B_BOOK, B_CONTRACT, B_SUMMARY, B_TICKER, B_TRADE,
  CONTRACT_BOOK, violations, type FieldTable,
} from '../../support/aggregator-standards';

/**
 * The feeds checked field by field against the two standards (CoinGecko's and CoinMarketCap's exchange API documents)
 * with their JSON types and units, on a futures market whose contract is 0.1 of its base, so a
 * figure in base units and one in contracts cannot be mistaken for each other. Compression too.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

const CONTRACT_VALUE = 0.1;
const INDEX = 205;
/** SOL_USDT futures fills, in contracts: a resting long, then a taker short that meets it (and the reverse). */
const FUT_FILLS = [
  { longMakes: true, price: 200, contracts: 2 },
  { longMakes: false, price: 210, contracts: 1.5 },
];
const SPOT_FILLS = [
  { price: 100, qty: 1 },
  { price: 101.5, qty: 0.25 },
];

const get = (path: string) => request(app).get(path);
const sum = (xs: BigNumber.Value[]) => xs.reduce<BigNumber>((a, b) => a.plus(b), new BigNumber(0));

async function foldCandles(kind: MarketKind, pair: string) {
  for (const [id, fields] of await ctx.redis.xrange(ctx.keys.events(kind, pair), '-', '+')) {
    await ctx.marketData.candles.apply(kind, pair, parseEntry(id, fields));
  }
}

async function futuresOrder(user: string, account: number, isLong: boolean, price: number | null, amount: number) {
  const r = await request(app).post('/api/futures/trade/create-order').set('Authorization', bearer(user)).send({
    isMarket: price === null, isLong, price: price ?? 0, amount, currencyPairCode: 'SOL_USDT', futuresAccountId: account,
  });
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  const post = (path: string, body: object) => request(app).post(path).set('Authorization', admin).send(body);
  expect((await post('/api/admin/currencies', { code: 'SOL', name: 'Solana', decimals: 8 })).status).toBe(200);
  expect((await post('/api/admin/pairs', {
    kind: 'futures', baseCurrencyCode: 'SOL', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 2,
    minBaseAmount: 0.01, minQuoteAmount: 1, makerFee: 0.0002, takerFee: 0.0006,
    contractValue: CONTRACT_VALUE, lotSize: 0.01, maxLeverage: 20, maintenanceMarginRate: 0.01,
  })).status).toBe(200);

  for (const u of ['alice', 'bob']) {
    await ctx.wallets.deposit(u, 'USDT', 1_000_000);
    await ctx.wallets.deposit(u, 'BTC', 100);
  }
  const spot = (user: string, side: 'buy' | 'sell', price: number, amount: number) =>
    ctx.spot.orders.place(user, { currencyPairCode: 'BTC_USDT', side, type: 'limit', price, amount });
  for (const f of SPOT_FILLS) {
    await spot('alice', 'sell', f.price, f.qty);
    expect((await spot('bob', 'buy', f.price, f.qty)).order.status).toBe('filled');
  }
  await spot('alice', 'sell', 110, 1);
  await spot('bob', 'buy', 90, 1);

  const bed = bedFor(ctx, app);
  const long = await bed.fundedAccount('flong');
  const short = await bed.fundedAccount('fshort');
  for (const f of FUT_FILLS) {
    if (f.longMakes) {
      await futuresOrder('flong', long, true, f.price, f.contracts);
      await futuresOrder('fshort', short, false, null, f.contracts);
    } else {
      await futuresOrder('fshort', short, false, f.price, f.contracts);
      await futuresOrder('flong', long, true, null, f.contracts);
    }
  }
  await futuresOrder('flong', long, true, 190, 1);
  await futuresOrder('fshort', short, false, 220, 1);
  expect((await post('/api/admin/index-price', { currencyPairCode: 'SOL_USDT', price: INDEX })).status).toBe(200);
  await foldCandles('spot', 'BTC_USDT');
  await foldCandles('futures', 'SOL_USDT');
});
afterAll(async () => ctx.cleanup());

/** Every record of a response against one table; the failures name the record and the field. */
function expectConforms(records: Record<string, unknown>[], table: FieldTable) {
  expect(records.length).toBeGreaterThan(0);
  expect(records.flatMap((r, i) => violations(r, table).map((v) => `#${i} ${v}`))).toEqual([]);
}

describe('aggregator A, spot, field by field (CoinGecko)', () => {
  it('pairs, tickers, order books and historical trades carry every field with its type', async () => {
    expectConforms((await get('/api/marketdata/aggregator-a/pairs')).body, A_PAIR);
    expectConforms((await get('/api/marketdata/aggregator-a/tickers')).body, A_TICKER);
    expectConforms((await get('/api/marketdata/aggregator-a/orderbook')).body, A_BOOK);
    const trades = (await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT')).body;
    expect(Object.keys(trades).sort()).toEqual(['buy', 'sell']);
    expectConforms(trades.buy, A_TRADE);
  });

  it('units: target volume is price × base volume, times in ms, each trade in the array of its type', async () => {
    const trades = (await get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT')).body;
    for (const side of ['buy', 'sell'] as const) {
      for (const t of trades[side]) {
        expect(t.type).toBe(side);
        expect(new BigNumber(t.target_volume).eq(new BigNumber(t.price).times(t.base_volume))).toBe(true);
        expect(Math.abs(t.trade_timestamp - Date.now())).toBeLessThan(300_000);
      }
    }
    const ticker = (await get('/api/marketdata/aggregator-a/tickers')).body.find((t: { ticker_id: string }) => t.ticker_id === 'BTC_USDT');
    expect(ticker.target_volume).toBe(sum(SPOT_FILLS.map((f) => new BigNumber(f.price).times(f.qty))).toFixed());
    expect(ticker.base_volume).toBe(sum(SPOT_FILLS.map((f) => f.qty)).toFixed());
  });
});

describe('aggregator B, spot, field by field (CoinMarketCap)', () => {
  const B = '/api/marketdata/getaggregatorb';

  it('summary, asset, ticker, order book and trades carry every field with its type', async () => {
    expectConforms((await get(`${B}/summary`)).body, B_SUMMARY);
    expectConforms(Object.values((await get(`${B}/asset`)).body), B_ASSET);
    expectConforms(Object.values((await get(`${B}/ticker`)).body), B_TICKER);
    expectConforms([(await get(`${B}/orderbook/BTC_USDT`)).body], B_BOOK);
    expectConforms((await get(`${B}/trades/BTC_USDT`)).body, B_TRADE);
  });

  it('units: quote volume is price × base volume; the book is best first', async () => {
    for (const t of (await get(`${B}/trades/BTC_USDT`)).body) {
      expect(t.quote_volume).toBe(new BigNumber(t.price).times(t.base_volume).toNumber());
    }
    const ticker = (await get(`${B}/ticker`)).body.BTC_USDT;
    expect(ticker.quote_volume).toBe(sum(SPOT_FILLS.map((f) => new BigNumber(f.price).times(f.qty))).toNumber());
    const book = (await get(`${B}/orderbook/BTC_USDT`)).body;
    expect(book.bids[0][0]).toBeLessThan(book.asks[0][0]);
  });
});

describe('futures contracts and books, field by field', () => {
  const openContracts = sum(FUT_FILLS.map((f) => f.contracts));
  const quoteVolume = sum(FUT_FILLS.map((f) => new BigNumber(f.price).times(f.contracts).times(CONTRACT_VALUE)));
  const baseVolume = openContracts.times(CONTRACT_VALUE);
  const contract = async (provider: string) => (await get(`/api/external-providers/${provider}/contracts`)).body;

  it('aggregator A carries every CoinGecko field, open interest in base units and in USD', async () => {
    const body = await contract('aggregator-a');
    for (const records of Object.values(body) as Record<string, unknown>[][]) expectConforms(records, A_CONTRACT);
    const [sol] = body.SOL_USDT;
    expect(sol.open_interest).toBe(openContracts.times(CONTRACT_VALUE).toNumber());
    // the quote is USDT, taken one for one as dollars; valued at the mark (= the index pushed)
    expect(sol.open_interest_usd).toBe(openContracts.times(CONTRACT_VALUE).times(INDEX).toNumber());
    expect(sol.index_price).toBe(INDEX);
    expect(sol.index_name).toBe('SOL_USDT');
    expect(sol.base_volume).toBe(baseVolume.toNumber());
    expect(sol.target_volume).toBe(quoteVolume.toNumber());
    expect(sol.contract_price).toBe(FUT_FILLS[FUT_FILLS.length - 1].price * CONTRACT_VALUE);
  });

  it('aggregator B carries every CoinMarketCap field, open interest in contracts', async () => {
    const body = await contract('aggregator-b');
    for (const records of Object.values(body) as Record<string, unknown>[][]) expectConforms(records, B_CONTRACT);
    const [sol] = body.SOL_USDT;
    expect(sol.open_interest).toBe(openContracts.toNumber());
    expect(sol.open_interest_usd).toBe(openContracts.times(CONTRACT_VALUE).times(INDEX).toNumber());
    expect(sol.quote_currency).toBe('USDT');
    expect(sol.quote_volume).toBe(quoteVolume.toNumber());
    expect(sol.USD_volume).toBe(quoteVolume.toNumber());
    expect(sol.base_volume).toBe(baseVolume.toNumber());
    expect({ maker: sol.maker_fee, taker: sol.taker_fee }).toEqual({ maker: 0.0002, taker: 0.0006 });
    expect(sol.next_funding_rate_timestamp).toBeGreaterThan(Date.now());
  });

  it.each(['aggregator-a', 'aggregator-b'])('%s order book: OpenAPI `ContractBook` with a ms timestamp, quantities in contracts', async (provider) => {
    const before = Date.now();
    const r = await get(`/api/external-providers/${provider}/orderbook?ticker_id=SOL_USDT`);
    expectConforms([r.body], CONTRACT_BOOK);
    expect(r.body.timestamp).toBeGreaterThanOrEqual(before);
    expect(r.body.bids).toEqual([{ price: 190, quantity: 1 }]);
    expect(r.body.asks).toEqual([{ price: 220, quantity: 1 }]);
  });
});

describe('USD rates', () => {
  it('a USD stablecoin is one dollar under any code; another asset is priced by its spot market in one', async () => {
    const rates = await new UsdRates(ctx.markets.store, ctx.redis, ctx.keys).rates(['USDT', 'USDT.TRC20', 'BTC', 'ETH']);
    expect(Object.fromEntries([...rates].map(([c, r]) => [c, r?.toNumber() ?? null]))).toEqual({
      USDT: 1, 'USDT.TRC20': 1, BTC: SPOT_FILLS[SPOT_FILLS.length - 1].price, ETH: null,
    });
  });
});

describe('response compression', () => {
  let server: Server;
  beforeAll(async () => {
    server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
  });
  afterAll(async () => new Promise((r) => server.close(r)));

  /** The bytes as sent, undecoded (supertest would inflate them). */
  function raw(path: string, acceptEncoding: string): Promise<{ encoding?: string; body: Buffer }> {
    const { port } = server.address() as AddressInfo;
    return new Promise((resolve, reject) => {
      httpRequest({ port, path, headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      }).on('error', reject).end();
    });
  }

  it('a large JSON response is gzip when the client accepts it, identity when not', async () => {
    const path = '/api/external-providers/aggregator-a/contracts';
    const plain = await raw(path, 'identity');
    expect(plain.encoding).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const zipped = await raw(path, 'gzip');
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    expect(JSON.parse(gunzipSync(zipped.body).toString())).toEqual(JSON.parse(plain.body.toString()));
  });

  it('a small response goes as it is, gzip accepted or not', async () => {
    const small = await raw('/api/marketdata/getaggregatorb/orderbook/ETH_USDT', 'gzip');
    expect(small.body.length).toBeLessThan(1024);
    expect(small.encoding).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toMatchObject({ bids: [], asks: [] });
  });
});
