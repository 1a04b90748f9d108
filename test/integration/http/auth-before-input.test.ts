import jwt from 'jsonwebtoken';
import request from 'supertest';
import type { Express } from 'express';
import { TEST_SECRET, bearer, createApp, testContext } from '../../support/harness';

/**
 * Authentication comes before anything else (docs/api-contract.md#tokens-and-public-routes): a signed token whose `sub` is not a usable
 * user id is a 401 on every authenticated route, whatever the body; and a body carrying
 * `__proto__` or `constructor` is refused rather than passed on with the key dropped.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;
let account: number;

const order = { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 };
const transferIn = () => ({ fromFuturesAccountId: null, toFuturesAccountId: account, currencyCode: 'USDT', amount: 10 });

/** A correctly signed token with the given claims (and no `sub` unless they hold one). */
const signed = (claims: Record<string, unknown>) => `Bearer ${jwt.sign(claims, TEST_SECRET, { algorithm: 'HS256', expiresIn: '1h' })}`;

async function state() {
  const get = (path: string) => request(app).get(path).set('Authorization', bearer('alice'));
  return {
    balances: (await get('/api/wallet/balances')).body,
    accounts: (await get('/api/futures/accounts')).body,
    orders: (await get('/api/orders')).body.totalCount,
    book: (await request(app).get('/api/orderbook/BTC_USDT')).body,
  };
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  await ctx.wallets.deposit('alice', 'USDT', 10_000);
  const a = await request(app)
    .post('/api/futures/accounts')
    .set('Authorization', bearer('alice'))
    .send({ name: 'main', currencyCode: 'USDT', leverage: 10 });
  expect(a.status).toBe(200);
  account = a.body.id;
});
afterAll(async () => ctx.cleanup());

describe('a token without a usable sub is a 401 before the body is looked at', () => {
  const subs: [string, Record<string, unknown>][] = [
    ['missing', {}],
    ['numeric', { sub: 42 }],
    ['empty', { sub: '' }],
    ['a colon', { sub: 'alice:x' }],
    ['a hash tag', { sub: '{e0}' }],
    ['a space', { sub: 'alice bob' }],
    ['an array', { sub: ['alice'] }],
    ['65 characters', { sub: 'a'.repeat(65) }],
  ];
  const routes: [string, () => Record<string, unknown>][] = [
    ['/api/orders', () => order],
    ['/api/wallet/transfer', transferIn],
    ['/api/futures/accounts', () => ({ name: 'x', currencyCode: 'USDT', leverage: 10 })],
  ];
  const cases = subs.flatMap(([name, claims]) =>
    routes.flatMap(([path, body]) => [
      [`${name} sub, ${path}, valid body`, claims, path, body] as const,
      [`${name} sub, ${path}, invalid body`, claims, path, () => ({ nonsense: true })] as const,
    ]),
  );

  it.each(cases)('%s', async (_name, claims, path, body) => {
    const before = await state();
    const r = await request(app).post(path).set('Authorization', signed({ ...claims, role: 'user' })).send(body());
    expect([r.status, r.headers['www-authenticate'], r.body.error?.code]).toEqual([401, 'Bearer', 'UNAUTHORIZED']);
    expect(await state()).toEqual(before);
  });

  it.each(subs)('%s sub with role admin: an admin deposit is a 401, not a credit', async (_name, claims) => {
    const before = await state();
    const r = await request(app)
      .post('/api/admin/deposits')
      .set('Authorization', signed({ ...claims, role: 'admin' }))
      .send({ userId: 'alice', currencyCode: 'USDT', amount: 1 });
    expect([r.status, r.headers['www-authenticate'], r.body.error?.code]).toEqual([401, 'Bearer', 'UNAUTHORIZED']);
    expect(await state()).toEqual(before);
  });

  it('the same routes answer a usable sub (the cases above fail on the sub alone)', async () => {
    const r = await request(app).post('/api/orders').set('Authorization', signed({ sub: 'alice' })).send({ nonsense: true });
    expect(r.status).toBe(400);
  });
});

describe('__proto__ and constructor keys are a 400, and nothing changes', () => {
  const raw = (path: string, token: string, json: string) =>
    request(app).post(path).set('Authorization', token).set('Content-Type', 'application/json').send(json);
  const deposit = '"userId":"alice","currencyCode":"USDT","amount":5';
  const transfer = () => `"fromFuturesAccountId":null,"toFuturesAccountId":${account},"currencyCode":"USDT","amount":10`;

  const cases: [string, string, () => string, boolean, string][] = [
    ['transfer with __proto__', '/api/wallet/transfer', () => `{${transfer()},"__proto__":{"amount":1}}`, false, '__proto__'],
    ['transfer with an empty __proto__', '/api/wallet/transfer', () => `{"__proto__":{},${transfer()}}`, false, '__proto__'],
    ['transfer with constructor', '/api/wallet/transfer', () => `{${transfer()},"constructor":{"prototype":{}}}`, false, 'constructor'],
    ['admin deposit with __proto__', '/api/admin/deposits', () => `{${deposit},"__proto__":{"role":"admin"}}`, true, '__proto__'],
    ['admin deposit with a nested __proto__', '/api/admin/deposits', () => `{${deposit},"x":[{"y":{"__proto__":1}}]}`, true, 'x.0.y.__proto__'],
    ['order with constructor', '/api/orders', () => `{${JSON.stringify(order).slice(1, -1)},"constructor":1}`, false, 'constructor'],
  ];

  it.each(cases)('%s', async (_name, path, json, asAdmin, at) => {
    const before = await state();
    const r = await raw(path, bearer(asAdmin ? 'ops' : 'alice', asAdmin), json());
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: { code: 'VALIDATION_FAILED', message: 'Invalid body', details: [{ path: at, message: expect.any(String) }] },
    });
    expect(await state()).toEqual(before);
  });

  it('a query key named __proto__ is refused the same way', async () => {
    const r = await request(app).get('/api/orders?__proto__=1').set('Authorization', bearer('alice'));
    expect([r.status, r.body.error?.code, r.body.error?.details?.[0]?.path]).toEqual([400, 'VALIDATION_FAILED', '__proto__']);
  });

  it('the same bodies without the key go through (so the cases above fail on the key alone)', async () => {
    const t = await raw('/api/wallet/transfer', bearer('alice'), `{${transfer()}}`);
    const d = await raw('/api/admin/deposits', bearer('ops', true), `{${deposit}}`);
    expect([t.status, d.status]).toEqual([200, 200]);
  });
});
