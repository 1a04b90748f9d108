import request from 'supertest';
import type { Express } from 'express';
import { CANDLE_PERIODS, candleOpen } from '../../../src/domain/candle';
import type { MarketEntry } from '../../../src/platform/market-event';
import { referenceCandles, type Fill } from '../../support/candle-reference';
import { createApp, testContext } from '../../support/harness';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

// BTC_USDT spot: 2 price digits, 6 amount digits
const DP = 2;
const DA = 6;
const MONTH_MS = 2_592_000_000;
let nextTradeId = 1;
let nextEntry = 1;

function entry(fills: Fill[]): MarketEntry {
  return {
    id: `${fills[0].ts}-${nextEntry++}`,
    ts: fills[0].ts,
    events: fills.map((f) => ({
      e: 'trade',
      id: String(nextTradeId++),
      p: String(Math.round(f.price * 10 ** DP)),
      q: String(Math.round(f.qty * 10 ** DA)),
      side: 'buy',
      tk: '1',
      mk: '2',
      tu: 'a',
      mu: 'b',
      tf: '0',
      mf: '0',
    })),
  };
}

const expected = (fills: Fill[], period: number) =>
  referenceCandles('BTC_USDT', fills, period, { price: DP, amount: DA });

async function candles(query: Record<string, string | number>) {
  const r = await request(app).get('/api/futures/exchange-data/candles').query(query);
  return r;
}

// A context each: the fold remembers applied entries in a window behind the newest, and these
// tests write far-apart stretches of history.
beforeEach(async () => {
  ctx = await testContext();
  app = createApp(ctx);
});
afterEach(async () => ctx.cleanup());

describe('candles', () => {
  it.each(CANDLE_PERIODS.map((p, i) => [p, i] as const))(
    'period %i s: a trade on the boundary opens the next candle',
    async (period, i) => {
      const len = period * 1000;
      const t0 = candleOpen(1_600_000_000_000 + i * 7 * MONTH_MS, period);
      const fills: Fill[] = [
        { ts: t0, price: 100, qty: 1 },
        { ts: t0 + len - 1, price: 110.5, qty: 0.25 },
        { ts: t0 + len - 1, price: 99.99, qty: 0.5 },
        { ts: t0 + len, price: 90, qty: 2 },
      ];
      for (const f of fills) expect(await ctx.marketData.candles.apply('spot', 'BTC_USDT', entry([f]))).toBe(true);
      const r = await candles({
        CurrencyPair: 'BTC_USDT',
        Kind: 'spot',
        CandleTimePeriod: period,
        DateFrom: new Date(t0).toISOString(),
        DateTo: new Date(t0 + 2 * len).toISOString(),
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(expected(fills, period));
      expect(r.body).toHaveLength(2);
    },
  );

  it('leaves out a period without trades, and DateFrom/DateTo select the candles that meet [from, to)', async () => {
    const t0 = candleOpen(1_500_000_000_000, 60);
    const fills: Fill[] = [0, 1, 3, 4, 5].map((m, k) => ({
      ts: t0 + m * 60_000 + 1000,
      price: 100 + k,
      qty: 1 + k,
    }));
    for (const f of fills) await ctx.marketData.candles.apply('spot', 'BTC_USDT', entry([f]));
    const all = await candles({
      currencyPair: 'BTC_USDT',
      kind: 'spot',
      dateFrom: new Date(t0).toISOString(),
      dateTo: new Date(t0 + 6 * 60_000).toISOString(),
    });
    expect(all.body).toEqual(expected(fills, 60));
    expect(all.body.map((c: { openTimestamp: string }) => c.openTimestamp)).not.toContain(
      new Date(t0 + 2 * 60_000).toISOString(),
    );

    // from inside minute 1 up to the start of minute 4: minutes 1 and 3 (2 is empty, 4 starts at DateTo)
    const some = await candles({
      CURRENCYPAIR: 'BTC_USDT',
      kind: 'spot',
      candletimeperiod: 60,
      DateFrom: new Date(t0 + 60_000 + 30_000).toISOString(),
      DateTo: new Date(t0 + 4 * 60_000).toISOString(),
    });
    expect(some.status).toBe(200);
    expect(some.body).toEqual(expected(fills, 60).slice(1, 3));
  });

  it('is unchanged by a replayed entry and by entries applied out of order', async () => {
    const t0 = candleOpen(1_400_000_000_000, 3600);
    const fills: Fill[] = [
      { ts: t0 + 5, price: 50, qty: 1 },
      { ts: t0 + 10, price: 60, qty: 1 },
      { ts: t0 + 20, price: 40, qty: 3 },
    ];
    const entries = fills.map((f) => entry([f]));
    for (const e of [entries[2], entries[0], entries[1]])
      expect(await ctx.marketData.candles.apply('spot', 'BTC_USDT', e)).toBe(true);
    for (const e of entries) expect(await ctx.marketData.candles.apply('spot', 'BTC_USDT', e)).toBe(false);
    const q = {
      CurrencyPair: 'BTC_USDT',
      Kind: 'spot',
      CandleTimePeriod: 3600,
      DateFrom: new Date(t0).toISOString(),
      DateTo: new Date(t0 + 3_600_000).toISOString(),
    };
    expect((await candles(q)).body).toEqual(expected(fills, 3600));
  });

  it('defaults to the futures market of a pair both kinds list, else spot, and to the 60 s period', async () => {
    const now = Date.now();
    const spotOnly = entry([{ ts: now, price: 123, qty: 1 }]);
    await ctx.marketData.candles.apply('spot', 'BTC_USDT.TRC20', spotOnly);
    const futures = { ...entry([{ ts: now, price: 0, qty: 0 }]) };
    futures.events = [{ ...futures.events[0], p: '777', q: '5' }]; // BTC_USDT futures: 1 price digit, 4 amount digits
    await ctx.marketData.candles.apply('futures', 'BTC_USDT', futures);
    const r = await candles({ CurrencyPair: 'BTC_USDT' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      expect.objectContaining({
        currencyPairCode: 'BTC_USDT',
        openPrice: 77.7,
        volumeBase: 0.0005,
        volume: 77.7 * 0.0005,
        candleTimePeriod: 60,
      }),
    ]);
    const spot = await candles({ CurrencyPair: 'BTC_USDT.TRC20' });
    expect(spot.body).toEqual([
      expect.objectContaining({ currencyPairCode: 'BTC_USDT.TRC20', openPrice: 123, volumeBase: 1 }),
    ]);
  });

  it('sums volumes exactly past 2^53', async () => {
    const ts = candleOpen(Date.now(), 60) + 1;
    const big = { e: 'trade', p: '999999999999', q: '9999999', side: 'buy' }; // 9,999,999,999.99 x 9.999999
    for (const id of ['1', '2', '3'])
      await ctx.marketData.candles.apply('spot', 'BTC_USDT', { id: `${ts}-${id}`, ts, events: [{ ...big, id }] });
    const stored = JSON.parse((await ctx.redis.hget(ctx.keys.candles('spot', 'BTC_USDT'), `60:${ts - 1}`))!);
    const one = BigInt(big.p) * BigInt(big.q);
    expect(one).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
    expect(stored).toMatchObject({ q: String(3n * one), v: String(3n * BigInt(big.q)), n: '3' });
  });

  it('refuses a period the contract does not list, an unknown pair, and DateFrom after DateTo', async () => {
    const bad = await candles({ CandleTimePeriod: 61 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
    const unknown = await candles({ CurrencyPair: 'NOPE_USDT' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('UNKNOWN_CURRENCY_PAIR');
    const range = await candles({ DateFrom: '2024-01-02T00:00:00Z', DateTo: '2024-01-01T00:00:00Z' });
    expect(range.status).toBe(400);
    expect(range.body.error.code).toBe('INVALID_DATE_RANGE');
  });
});
