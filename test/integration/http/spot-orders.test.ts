import request from 'supertest';
import type { Express } from 'express';
import { bearer, createApp, testContext } from '../../support/harness';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;
const admin = bearer('ops', true);

async function deposit(user: string, currencyCode: string, amount: number) {
  const r = await request(app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: user, currencyCode, amount });
  expect(r.status).toBe(200);
}

async function place(user: string, body: Record<string, unknown>) {
  return request(app).post('/api/orders').set('Authorization', bearer(user)).send(body);
}

async function balances(user: string): Promise<Record<string, { available: number; reserved: number }>> {
  const r = await request(app).get('/api/wallet/balances').set('Authorization', bearer(user));
  expect(r.status).toBe(200);
  return Object.fromEntries(r.body.map((b: { currencyCode: string }) => [b.currencyCode, b]));
}

const limit = (side: string, price: number, amount: number, extra: Record<string, unknown> = {}) => ({
  currencyPairCode: 'BTC_USDT', side, type: 'limit', price, amount, ...extra,
});

beforeEach(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  for (const u of ['alice', 'bob', 'carol']) {
    await deposit(u, 'USDT', 1_000_000);
    await deposit(u, 'BTC', 100);
  }
});
afterEach(async () => ctx.cleanup());

describe('spot placement and matching', () => {
  it('rests a limit order and reserves price x amount of quote', async () => {
    const r = await place('alice', limit('buy', 100, 2));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'open', price: 100, amount: 2, filled: 0, side: 'buy', type: 'limit' });
    const b = await balances('alice');
    expect(b.USDT).toEqual({ currencyCode: 'USDT', available: 1_000_000 - 200, reserved: 200 });
  });

  it('fills at the maker price by price-time priority and charges maker and taker fees', async () => {
    const first = await place('alice', limit('sell', 101, 1));
    const second = await place('bob', limit('sell', 101, 1));
    const better = await place('carol', limit('sell', 100, 1));
    await deposit('dan', 'USDT', 1000);
    const taker = await place('dan', limit('buy', 102, 2));
    expect(taker.status).toBe(200);
    // best price first (carol @100), then alice before bob at 101
    expect(taker.body.filled).toBe(2);
    expect(taker.body.filledQuote).toBe(201);
    expect(taker.body.status).toBe('filled');
    const aliceSell = await request(app).get(`/api/orders/${first.body.id}`).set('Authorization', bearer('alice'));
    const bobSell = await request(app).get(`/api/orders/${second.body.id}`).set('Authorization', bearer('bob'));
    const carolSell = await request(app).get(`/api/orders/${better.body.id}`).set('Authorization', bearer('carol'));
    expect(carolSell.body.status).toBe('filled');
    expect(aliceSell.body.status).toBe('filled');
    expect(bobSell.body.status).toBe('open');
    // taker fee 0.2 % of 2 BTC received; maker fee 0.1 % of 100 USDT
    expect(taker.body.fee).toBeCloseTo(0.004, 10);
    expect(carolSell.body.fee).toBeCloseTo(0.1, 10);
    const book = await request(app).get('/api/orderbook/BTC_USDT');
    expect(book.body.bids).toEqual([]);
    expect(book.body.asks).toEqual([{ price: 101, quantity: 1 }]);
    const dan = await balances('dan');
    // paid 201 USDT, received 2 BTC less the 0.2 % taker fee
    expect(dan.USDT).toMatchObject({ available: 1000 - 201, reserved: 0 });
    expect(dan.BTC).toMatchObject({ available: 2 - 0.004, reserved: 0 });
  });

  it('releases price improvement: a limit buy keeps only limit x remaining reserved', async () => {
    await place('bob', limit('sell', 90, 1));
    await place('alice', limit('buy', 100, 2));
    const b = await balances('alice');
    // paid 90 for 1, still reserves 100 for the resting 1
    expect(b.USDT.reserved).toBe(100);
    expect(b.USDT.available).toBe(1_000_000 - 90 - 100);
  });

  it('rejects a post-only order that would take, leaving nothing behind', async () => {
    await place('bob', limit('sell', 100, 1));
    const before = await balances('alice');
    const r = await place('alice', limit('buy', 100, 1, { postOnly: true, clientOrderId: 'po-1' }));
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('ORDER_POST_ONLY_WOULD_TAKE');
    expect(await balances('alice')).toEqual(before);
    const list = await request(app).get('/api/orders').set('Authorization', bearer('alice'));
    expect(list.body.totalCount).toBe(0);
    const ok = await place('alice', limit('buy', 99, 1, { postOnly: true }));
    expect(ok.body.status).toBe('open');
  });

  it('ignores postOnly on market orders and kills the unfilled rest of a market sell', async () => {
    await place('bob', limit('buy', 100, 1));
    const r = await place('alice', { currencyPairCode: 'BTC_USDT', side: 'sell', type: 'market', amount: 3, postOnly: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'expired', filled: 1 });
    const b = await balances('alice');
    expect(b.BTC.reserved).toBe(0);
    expect(b.BTC.available).toBe(99);
    const book = await request(app).get('/api/orderbook/BTC_USDT');
    expect(book.body.asks).toEqual([]);
  });

  it('a market buy spends its quoteAmount and never rests', async () => {
    await place('bob', limit('sell', 100, 1));
    await place('bob', limit('sell', 200, 1));
    const r = await place('alice', { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'market', quoteAmount: 150 });
    expect(r.status).toBe(200);
    expect(r.body.filled).toBe(1.25);
    expect(r.body.filledQuote).toBe(150);
    expect(r.body.status).toBe('filled');
    const b = await balances('alice');
    expect(b.USDT.reserved).toBe(0);
    expect(b.USDT.available).toBe(1_000_000 - 150);
    const book = await request(app).get('/api/orderbook/BTC_USDT');
    expect(book.body.bids).toEqual([]);
    expect(book.body.asks).toEqual([{ price: 200, quantity: 0.75 }]);
  });

  it('rounds price and amount down to the pair digits and rejects orders below the minimums', async () => {
    const r = await place('alice', limit('buy', 100.019, 0.1234567));
    expect(r.body).toMatchObject({ price: 100.01, amount: 0.123456 });
    const tiny = await place('alice', limit('buy', 100, 0.000001));
    expect(tiny.status).toBe(422);
    expect(tiny.body.error.code).toBe('BELOW_MIN_BASE_AMOUNT');
    const cheap = await place('alice', limit('buy', 0.01, 1));
    expect(cheap.status).toBe(422);
    expect(cheap.body.error.code).toBe('BELOW_MIN_QUOTE_AMOUNT');
  });

  it('treats currency codes as opaque: a dotted code trades as quote', async () => {
    await deposit('alice', 'USDT.TRC20', 1000);
    const r = await place('alice', { ...limit('buy', 100, 1), currencyPairCode: 'BTC_USDT.TRC20' });
    expect(r.status).toBe(200);
    const b = await balances('alice');
    expect(b['USDT.TRC20'].reserved).toBe(100);
    const pairs = await request(app).get('/api/currencies/pairs');
    expect(pairs.body.map((p: { currencyPairCode: string }) => p.currencyPairCode)).toContain('BTC_USDT.TRC20');
  });

  it('refuses an order larger than the balance with 422 and changes nothing', async () => {
    const before = await balances('alice');
    const r = await place('alice', limit('buy', 1_000_000, 2));
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(await balances('alice')).toEqual(before);
  });

  it('refuses an order whose value would pass 2^53 minor units with 422', async () => {
    const r = await place('alice', limit('buy', 90_000_000_000, 1000));
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('NOTIONAL_TOO_LARGE');
  });
});

describe('self-trade prevention', () => {
  const cases: [string, string, string, string, number][] = [
    // maker mode, taker mode, maker status after, taker status, filled
    ['NONE', 'NONE', 'filled', 'filled', 1],
    ['NONE', 'EXPIRE_TAKER', 'open', 'expired', 0],
    ['NONE', 'EXPIRE_MAKER', 'expired', 'open', 0],
    ['EXPIRE_MAKER', 'NONE', 'expired', 'open', 0],
    ['EXPIRE_TAKER', 'NONE', 'open', 'expired', 0],
    ['EXPIRE_TAKER', 'EXPIRE_MAKER', 'expired', 'expired', 0],
    ['NONE', 'EXPIRE_BOTH', 'expired', 'expired', 0],
  ];
  it.each(cases)('maker %s against taker %s: maker %s, taker %s', async (mMode, tMode, mStatus, tStatus, filled) => {
    const maker = await place('alice', limit('sell', 100, 1, { selfTradePrevention: mMode }));
    const taker = await place('alice', limit('buy', 100, 1, { selfTradePrevention: tMode }));
    expect(taker.status).toBe(200);
    expect(taker.body.status).toBe(tStatus);
    expect(taker.body.filled).toBe(filled);
    const m = await request(app).get(`/api/orders/${maker.body.id}`).set('Authorization', bearer('alice'));
    expect(m.body.status).toBe(mStatus);
    const b = await balances('alice');
    const restingBuy = tStatus === 'open' ? 100 : 0;
    const restingSell = mStatus === 'open' ? 1 : 0;
    expect(b.USDT.reserved).toBe(restingBuy);
    expect(b.BTC.reserved).toBe(restingSell);
  });

  it('matches other accounts past an expired own maker', async () => {
    await place('alice', limit('sell', 100, 1));
    await place('bob', limit('sell', 100, 1));
    const t = await place('alice', limit('buy', 100, 1, { selfTradePrevention: 'EXPIRE_MAKER' }));
    expect(t.body).toMatchObject({ status: 'filled', filled: 1 });
  });
});

describe('cancelling', () => {
  it('cancels one order, releasing its reservation, and hides other users orders behind 404', async () => {
    const o = await place('alice', limit('buy', 100, 1));
    const other = await request(app).delete(`/api/orders/${o.body.id}`).set('Authorization', bearer('bob'));
    expect(other.status).toBe(404);
    const r = await request(app).delete(`/api/orders/${o.body.id}`).set('Authorization', bearer('alice'));
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    expect((await balances('alice')).USDT.reserved).toBe(0);
    const again = await request(app).delete(`/api/orders/${o.body.id}`).set('Authorization', bearer('alice'));
    expect(again.status).toBe(409);
  });

  it('cancels every order the caller holds on one pair and nothing else', async () => {
    const a1 = await place('alice', limit('buy', 100, 1));
    const a2 = await place('alice', limit('sell', 120, 1));
    const eth = await place('alice', { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 10, amount: 1 });
    const bob = await place('bob', limit('buy', 99, 1));
    const r = await request(app).delete('/api/orders?currencyPairCode=BTC_USDT').set('Authorization', bearer('alice'));
    expect(r.status).toBe(200);
    expect(r.body.cancelled).toEqual([a1.body.id, a2.body.id]);
    const ethOrder = await request(app).get(`/api/orders/${eth.body.id}`).set('Authorization', bearer('alice'));
    expect(ethOrder.body.status).toBe('open');
    const bobOrder = await request(app).get(`/api/orders/${bob.body.id}`).set('Authorization', bearer('bob'));
    expect(bobOrder.body.status).toBe('open');
    const b = await balances('alice');
    expect(b.BTC.reserved).toBe(0);
    expect(b.USDT.reserved).toBe(10);
  });
});

describe('idempotency', () => {
  it('50 concurrent requests with one clientOrderId place one order and one reservation', async () => {
    const body = limit('buy', 100, 1, { clientOrderId: 'same-1' });
    const replies = await Promise.all(Array.from({ length: 50 }, () => place('alice', body)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const ids = new Set(replies.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const list = await request(app).get('/api/orders').set('Authorization', bearer('alice'));
    expect(list.body.totalCount).toBe(1);
    expect((await balances('alice')).USDT.reserved).toBe(100);
  });

  it('the same clientOrderId from another user is another order', async () => {
    const a = await place('alice', limit('buy', 100, 1, { clientOrderId: 'x' }));
    const b = await place('bob', limit('buy', 100, 1, { clientOrderId: 'x' }));
    expect(a.body.id).not.toBe(b.body.id);
  });
});

describe('listing and reading', () => {
  it('filters by pair and status and pages newest first', async () => {
    for (let i = 0; i < 5; i++) await place('alice', limit('buy', 100 + i, 1));
    await place('alice', { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 10, amount: 1 });
    const page = await request(app)
      .get('/api/orders?currencyPairCode=BTC_USDT&status=open&page=2&pageSize=2')
      .set('Authorization', bearer('alice'));
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: 2, pageSize: 2, totalCount: 5, totalPages: 3 });
    expect(page.body.items.map((o: { price: number }) => o.price)).toEqual([102, 101]);
  });

  it('lists recent trades newest first with the taker side', async () => {
    await place('bob', limit('sell', 100, 1));
    await place('bob', limit('sell', 101, 1));
    await place('alice', limit('buy', 101, 2));
    const r = await request(app).get('/api/trades/BTC_USDT');
    expect(r.status).toBe(200);
    expect(r.body.map((t: { price: number }) => t.price)).toEqual([101, 100]);
    expect(r.body[0]).toMatchObject({ side: 'buy', amount: 1, currencyPairCode: 'BTC_USDT' });
  });
});

describe('unfiltered listing', () => {
  it('pages straight through all the caller orders, newest first', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await place('alice', limit('buy', 100 + i, 1))).body.id);
    const r = await request(app).get('/api/orders?page=1&pageSize=3').set('Authorization', bearer('alice'));
    expect(r.body).toMatchObject({ page: 1, pageSize: 3, totalCount: 5, totalPages: 2 });
    expect(r.body.items.map((o: { id: number }) => o.id)).toEqual(ids.slice().reverse().slice(0, 3));
    const bob = await request(app).get('/api/orders').set('Authorization', bearer('bob'));
    expect(bob.body.totalCount).toBe(0);
  });
});
