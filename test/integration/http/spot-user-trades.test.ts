import request from 'supertest';
import type { Express } from 'express';
import { bearer, createApp, testContext } from '../../support/harness';

/** GET /api/trades/{pair}/user: the caller's spot fills, newest first, from the caller's side. */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;

async function deposit(user: string, currencyCode: string, amount: number) {
  const r = await request(app).post('/api/admin/deposits').set('Authorization', bearer('ops', true)).send({ userId: user, currencyCode, amount });
  expect(r.status).toBe(200);
}

async function place(user: string, side: string, price: number, amount: number, pair = 'BTC_USDT') {
  const r = await request(app).post('/api/orders').set('Authorization', bearer(user))
    .send({ currencyPairCode: pair, side, type: 'limit', price, amount });
  expect(r.status).toBe(200);
  return r.body as { id: number };
}

const fills = (user: string, query = '', pair = 'BTC_USDT') =>
  request(app).get(`/api/trades/${pair}/user${query}`).set('Authorization', bearer(user));

beforeEach(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  for (const u of ['alice', 'bob']) {
    await deposit(u, 'USDT', 100_000);
    await deposit(u, 'BTC', 10);
    await deposit(u, 'ETH', 100);
  }
});
afterEach(async () => ctx.cleanup());

describe('GET /api/trades/{pair}/user', () => {
  it("answers each side's fills with its own side, role, order and fee, newest first, and only that pair", async () => {
    const bid = await place('alice', 'buy', 100, 1);
    const ask1 = await place('bob', 'sell', 100, 0.25);
    const ask2 = await place('bob', 'sell', 99, 0.5);
    await place('alice', 'buy', 50, 1, 'ETH_USDT');
    await place('bob', 'sell', 50, 1, 'ETH_USDT');

    const a = await fills('alice');
    expect(a.status).toBe(200);
    expect(a.body.map((t: { orderId: number }) => t.orderId)).toEqual([bid.id, bid.id]);
    expect(a.body[0]).toMatchObject({ side: 'buy', takerOrMaker: 'maker', price: 100, amount: 0.5, feeCurrencyCode: 'BTC', fee: 0.0005 });
    expect(a.body[1]).toMatchObject({ amount: 0.25, fee: 0.00025 });
    expect(a.body[0].id).toBeGreaterThan(a.body[1].id);

    const b = await fills('bob');
    expect(b.body.map((t: { id: number; orderId: number }) => [t.id, t.orderId])).toEqual([
      [a.body[0].id, ask2.id],
      [a.body[1].id, ask1.id],
    ]);
    expect(b.body[0]).toMatchObject({ side: 'sell', takerOrMaker: 'taker', feeCurrencyCode: 'USDT', fee: 0.1, currencyPairCode: 'BTC_USDT' });
    expect((await fills('bob', '?limit=1')).body).toHaveLength(1);
  });

  it('a self-trade is two fills of the caller: the taker and the maker', async () => {
    const maker = await place('alice', 'sell', 100, 0.1);
    const taker = await place('alice', 'buy', 100, 0.1);
    const r = await fills('alice');
    expect(r.body.map((t: { orderId: number; takerOrMaker: string; side: string }) => [t.orderId, t.takerOrMaker, t.side])).toEqual([
      [taker.id, 'taker', 'buy'],
      [maker.id, 'maker', 'sell'],
    ]);
  });

  it('beforeId pages through every fill once, and a page never splits the two fills of a self-trade', async () => {
    await place('alice', 'sell', 100, 0.1);
    await place('bob', 'buy', 100, 0.1);
    await place('alice', 'sell', 100, 0.1);
    await place('alice', 'buy', 100, 0.1);
    await place('bob', 'sell', 100, 0.1);
    await place('alice', 'buy', 100, 0.1);
    type Fill = { id: number; takerOrMaker: string };
    const all = (await fills('alice')).body as Fill[];
    expect(all.map((f) => f.takerOrMaker)).toEqual(['taker', 'taker', 'maker', 'maker']);

    const pages: Fill[][] = [];
    let query = '?limit=1';
    for (;;) {
      const r = await fills('alice', query);
      expect(r.status).toBe(200);
      if (r.body.length === 0) break;
      pages.push(r.body);
      query = `?limit=1&beforeId=${r.body[r.body.length - 1].id}`;
    }
    expect(pages.map((p) => p.length)).toEqual([1, 2, 1]);
    expect(pages.flat()).toEqual(all);
    expect((await fills('alice', '?beforeId=0')).status).toBe(400);
  });

  it('since leaves out older fills; a user without orders has none; bad input is 400, an unknown pair 404, no token 401', async () => {
    await place('alice', 'buy', 100, 0.1);
    await place('bob', 'sell', 100, 0.1);
    expect((await fills('alice')).body).toHaveLength(1);
    expect((await fills('alice', `?since=${new Date(Date.now() + 120_000).toISOString()}`)).body).toEqual([]);
    expect((await fills('alice', `?since=${new Date(Date.now() - 120_000).toISOString()}`)).body).toHaveLength(1);
    expect((await fills('carol')).body).toEqual([]);
    expect((await fills('alice', '?limit=0')).status).toBe(400);
    expect((await fills('alice', '?since=yesterday')).status).toBe(400);
    expect((await fills('alice', '', 'NOPE_USDT')).status).toBe(404);
    expect((await request(app).get('/api/trades/BTC_USDT/user')).status).toBe(401);
  });
});
