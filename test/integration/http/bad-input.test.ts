import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { bearer, createApp, testContext } from '../../support/harness';
import { seedMarkets } from '../../../src/markets';
import { createLogger } from '../../../src/platform/config/logger';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

const good = { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 };

async function snapshotState() {
  const balances = await request(app).get('/api/wallet/balances').set('Authorization', bearer('alice'));
  const orders = await request(app).get('/api/orders').set('Authorization', bearer('alice'));
  return { balances: balances.body, orders: orders.body.totalCount };
}

function expectErrorBody(body: unknown, code: string) {
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array) },
  });
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  await ctx.wallets.deposit('alice', 'USDT', 10_000);
  await ctx.wallets.deposit('alice', 'BTC', 10);
});
afterAll(async () => ctx.cleanup());

describe('bad input on POST /api/orders changes nothing', () => {
  const cases: [string, Record<string, unknown> | string, number, string][] = [
    ['missing amount', { ...good, amount: undefined }, 400, 'VALIDATION_FAILED'],
    ['missing side', { ...good, side: undefined }, 400, 'VALIDATION_FAILED'],
    ['negative amount', { ...good, amount: -1 }, 400, 'VALIDATION_FAILED'],
    ['zero price', { ...good, price: 0 }, 400, 'VALIDATION_FAILED'],
    ['non-numeric amount', { ...good, amount: 'lots' }, 400, 'VALIDATION_FAILED'],
    ['numeric string amount', { ...good, amount: '1' }, 400, 'VALIDATION_FAILED'],
    ['unknown field', { ...good, leverage: 10 }, 400, 'VALIDATION_FAILED'],
    ['unknown side', { ...good, side: 'hold' }, 400, 'VALIDATION_FAILED'],
    ['unknown stp mode', { ...good, selfTradePrevention: 'CANCEL_ALL' }, 400, 'VALIDATION_FAILED'],
    ['market buy without quoteAmount', { ...good, type: 'market', price: undefined }, 400, 'VALIDATION_FAILED'],
    ['unknown pair', { ...good, currencyPairCode: 'DOGE_USDT' }, 400, 'UNKNOWN_CURRENCY_PAIR'],
    ['pair split on a dot', { ...good, currencyPairCode: 'BTC.USDT' }, 400, 'UNKNOWN_CURRENCY_PAIR'],
    ['1e308 amount', { ...good, amount: 1e308 }, 400, 'VALIDATION_FAILED'],
    ['amount past 2^53 lots', { ...good, amount: 1e10 }, 422, 'NOTIONAL_TOO_LARGE'],
    ['malformed JSON', '{"currencyPairCode": ', 400, 'MALFORMED_JSON'],
  ];

  it.each(cases)('%s', async (_name, body, status, code) => {
    const before = await snapshotState();
    const req = request(app).post('/api/orders').set('Authorization', bearer('alice'));
    const r = typeof body === 'string' ? await req.set('Content-Type', 'application/json').send(body) : await req.send(body);
    expect(r.status).toBe(status);
    expectErrorBody(r.body, code);
    expect(await snapshotState()).toEqual(before);
  });

  it('a 1 MB body is refused with 413', async () => {
    const before = await snapshotState();
    const r = await request(app)
      .post('/api/orders')
      .set('Authorization', bearer('alice'))
      .send({ ...good, clientOrderId: 'x'.repeat(1024 * 1024) });
    expect(r.status).toBe(413);
    expectErrorBody(r.body, 'PAYLOAD_TOO_LARGE');
    expect(await snapshotState()).toEqual(before);
  });

  it('validation names every bad field', async () => {
    const r = await request(app).post('/api/orders').set('Authorization', bearer('alice')).send({ side: 'x', extra: 1 });
    expect(r.status).toBe(400);
    const paths = r.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['currencyPairCode', 'side', 'type', 'extra']));
  });
});

describe('authentication and authorisation', () => {
  it.each([
    ['no token', undefined],
    ['malformed token', 'Bearer not.a.jwt'],
    ['wrong scheme', 'Basic abc'],
    ['token signed with another secret', `Bearer ${jwt.sign({ sub: 'alice' }, 'another-secret-0123456789')}`],
  ])('%s gets 401 with WWW-Authenticate', async (_name, header) => {
    const req = request(app).post('/api/orders');
    const r = header ? await req.set('Authorization', header).send(good) : await req.send(good);
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer');
    expectErrorBody(r.body, 'UNAUTHORIZED');
  });

  it('admin endpoints refuse a user token with 403', async () => {
    const r = await request(app)
      .post('/api/admin/deposits')
      .set('Authorization', bearer('alice'))
      .send({ userId: 'alice', currencyCode: 'USDT', amount: 1 });
    expect(r.status).toBe(403);
    expectErrorBody(r.body, 'ADMIN_ONLY');
  });

  it('unknown routes answer 404 with the error body', async () => {
    const r = await request(app).get('/api/nope');
    expect(r.status).toBe(404);
    expectErrorBody(r.body, 'NOT_FOUND');
  });
});

describe('admin reference data', () => {
  it('creates a currency with a dotted code and a pair on it, and refuses a duplicate with 409', async () => {
    const admin = bearer('ops', true);
    const c = await request(app).post('/api/admin/currencies').set('Authorization', admin).send({ code: 'USDC.SOL', name: 'USDC on Solana', decimals: 8 });
    expect(c.status).toBe(200);
    const p = await request(app).post('/api/admin/pairs').set('Authorization', admin).send({
      kind: 'spot', baseCurrencyCode: 'ETH', quoteCurrencyCode: 'USDC.SOL', digitsPrice: 2, digitsAmount: 4,
      minBaseAmount: 0.001, minQuoteAmount: 1, makerFee: 0.001, takerFee: 0.002,
    });
    expect(p.status).toBe(200);
    expect(p.body.code).toBe('ETH_USDC.SOL');
    const again = await request(app).post('/api/admin/currencies').set('Authorization', admin).send({ code: 'USDC.SOL', name: 'x', decimals: 8 });
    expect(again.status).toBe(409);
    const currencies = await request(app).get('/api/currencies');
    expect(currencies.body.map((x: { code: string }) => x.code)).toContain('USDC.SOL');
  });

  it('refuses a pair whose digits the currencies cannot hold exactly', async () => {
    const r = await request(app).post('/api/admin/pairs').set('Authorization', bearer('ops', true)).send({
      kind: 'spot', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'ETH', digitsPrice: 6, digitsAmount: 6,
      minBaseAmount: 0, minQuoteAmount: 0, makerFee: 0, takerFee: 0,
    });
    expect(r.status).toBe(400);
    expectErrorBody(r.body, 'PAIR_DIGITS_EXCEED_CURRENCY');
  });
});

describe('issue 10 pair rules, through the admin endpoint and MARKETS_FILE alike (finding 4)', () => {
  // a sound futures pair of two currencies of its own; each case breaks one rule
  const sound = {
    kind: 'futures', baseCurrencyCode: 'PRB', quoteCurrencyCode: 'PRQ', digitsPrice: 1, digitsAmount: 3,
    minBaseAmount: 0.001, minQuoteAmount: 1, makerFee: 0.0002, takerFee: 0.0005,
    contractValue: 1, lotSize: 0.001, maxLeverage: 100, maintenanceMarginRate: 0.005,
  };
  const broken: [string, Record<string, unknown>, string][] = [
    ['200x at 1 % maintenance (a long starts at its liquidation price)', { maxLeverage: 200, maintenanceMarginRate: 0.01 }, 'PAIR_LEVERAGE_MARGIN'],
    ['a maker fee above the taker fee', { makerFee: 0.001, takerFee: 0.0005 }, 'PAIR_FEES'],
    ['a contract value the quote currency cannot count', { contractValue: 0.0000001 }, 'PAIR_CONTRACT_VALUE'],
  ];
  const admin = bearer('ops', true);
  const exists = async () => (await ctx.markets.store.getPair('futures', 'PRB_PRQ')) !== undefined;
  // seeds a MARKETS_FILE holding `pair` alone (its currencies exist)
  const seed = (pair: Record<string, unknown>) => {
    const file = join(mkdtempSync(join(tmpdir(), 'markets-')), 'markets.json');
    writeFileSync(file, JSON.stringify({ currencies: [], pairs: [pair] }));
    return seedMarkets(file, ctx.markets.service, createLogger('silent'));
  };

  beforeAll(async () => {
    for (const code of ['PRB', 'PRQ']) {
      const r = await request(app).post('/api/admin/currencies').set('Authorization', admin).send({ code, name: code, decimals: 8 });
      expect(r.status).toBe(200);
    }
  });

  it.each(broken)('POST /api/admin/pairs: %s is a 422 naming the rule, and no pair is made', async (_, change, code) => {
    const r = await request(app).post('/api/admin/pairs').set('Authorization', admin).send({ ...sound, ...change });
    expect(r.status).toBe(422);
    expectErrorBody(r.body, code);
    expect(await exists()).toBe(false);
  });

  it.each(broken)('MARKETS_FILE: %s stops the seeding with the rule named, and no pair is made', async (_, change, code) => {
    await expect(seed({ ...sound, ...change })).rejects.toMatchObject({ status: 422, code });
    expect(await exists()).toBe(false);
  });

  it('the sound pair passes both doors: MARKETS_FILE makes it, the admin endpoint then finds it made (409, past the rules)', async () => {
    await seed(sound);
    expect(await exists()).toBe(true);
    const r = await request(app).post('/api/admin/pairs').set('Authorization', admin).send(sound);
    expect(r.status).toBe(409);
    expectErrorBody(r.body, 'PAIR_EXISTS');
  });
});
