import request from 'supertest';
import { bearer } from '../../support/harness';
import { admin, futuresBed } from './helpers';

/**
 * Self-trade prevention is per account (issue 24 finding 6; docs/futures.md, docs/spot.md): "two
 * orders of the same account". One user's two futures accounts trade with each other like any two
 * accounts; within one account the stricter mode of the two orders applies; on spot the account is
 * the user's wallet, so it stays per user.
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
beforeEach(async () => {
  b = await futuresBed();
});
afterEach(async () => b.ctx.cleanup());

async function secondAccount(user: string, amount: number): Promise<number> {
  const a = await request(b.app).post('/api/futures/accounts').set('Authorization', bearer(user))
    .send({ name: `${user}-second`, currencyCode: 'USDT', leverage: 10 });
  expect(a.status).toBe(200);
  await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: user, currencyCode: 'USDT', amount });
  const t = await request(b.app).post('/api/wallet/transfer').set('Authorization', bearer(user))
    .send({ fromFuturesAccountId: null, toFuturesAccountId: a.body.id, currencyCode: 'USDT', amount });
  expect(t.status).toBe(200);
  return a.body.id;
}

describe('futures: per account', () => {
  it("one user's accounts X (buy 0.1 @ 100, EXPIRE_BOTH) and Y (sell 0.1 @ 100) trade with each other", async () => {
    const x = await b.fundedAccount('ann', 1000);
    const y = await secondAccount('ann', 1000);
    const total = await b.usdtTotal();
    const buy = await b.order('ann', x, true, 100, 0.1, { selfTradePrevention: 'EXPIRE_BOTH' });
    const sell = await b.order('ann', y, false, 100, 0.1);
    expect(await b.record('ann', buy)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.1 });
    expect(await b.record('ann', sell)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.1 });
    // each account holds its own side's margin (0.1 x 100 / 10 = 1 USDT)
    expect([(await b.account('ann', x)).usedMargin, (await b.account('ann', y)).usedMargin]).toEqual([1, 1]);
    const deals = await b.get('ann', '/api/futures/deals/user');
    expect(deals.status).toBe(200);
    expect(deals.body.items.length).toBe(2); // one trade, a deal for each side
    expect(await b.usdtTotal()).toBe(total);
  });

  it('ten buys on X (EXPIRE_BOTH) and ten sells on Y sent at once all fill against each other', async () => {
    const x = await b.fundedAccount('ann', 1000);
    const y = await secondAccount('ann', 1000);
    const total = await b.usdtTotal();
    const sends = Array.from({ length: 10 }, () => [
      b.create('ann', { isMarket: false, isLong: true, price: 100, amount: 0.1, currencyPairCode: 'BTC_USDT', futuresAccountId: x, selfTradePrevention: 'EXPIRE_BOTH' }),
      b.create('ann', { isMarket: false, isLong: false, price: 100, amount: 0.1, currencyPairCode: 'BTC_USDT', futuresAccountId: y }),
    ]).flat();
    const ids = (await Promise.all(sends)).map((r) => {
      expect(r.status).toBe(200);
      return r.body.id as number;
    });
    for (const id of ids) expect([id, (await b.record('ann', id)).futuresOrderStatus]).toEqual([id, 50]);
    expect([(await b.account('ann', x)).usedMargin, (await b.account('ann', y)).usedMargin]).toEqual([10, 10]);
    expect(await b.usdtTotal()).toBe(total);
  });

  it('two orders of one account: the stricter mode expires both (EXPIRE_BOTH against none)', async () => {
    const x = await b.fundedAccount('ann', 1000);
    const total = await b.usdtTotal();
    const buy = await b.order('ann', x, true, 100, 0.1, { selfTradePrevention: 'EXPIRE_BOTH' });
    const sell = await b.order('ann', x, false, 100, 0.1);
    expect(await b.record('ann', buy)).toMatchObject({ futuresOrderStatus: 30, filled: 0 });
    expect(await b.record('ann', sell)).toMatchObject({ futuresOrderStatus: 30, filled: 0 });
    expect((await b.account('ann', x)).usedMargin).toBe(0);
    expect(await b.usdtTotal()).toBe(total);
  });
});

describe('spot: the account is the wallet', () => {
  it("one user's two spot orders still meet self-trade prevention", async () => {
    for (const [cur, amount] of [['USDT', 1000], ['BTC', 1]] as const) {
      const d = await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: 'ann', currencyCode: cur, amount });
      expect(d.status).toBe(200);
    }
    const place = (side: 'buy' | 'sell', extra: Record<string, unknown> = {}) => request(b.app).post('/api/orders')
      .set('Authorization', bearer('ann')).send({ currencyPairCode: 'BTC_USDT', side, type: 'limit', price: 100, amount: 0.1, ...extra });
    const buy = await place('buy', { selfTradePrevention: 'EXPIRE_BOTH' });
    const sell = await place('sell');
    expect([buy.status, sell.status]).toEqual([200, 200]);
    expect(sell.body).toMatchObject({ status: 'expired', filled: 0 });
    const maker = await request(b.app).get(`/api/orders/${buy.body.id}`).set('Authorization', bearer('ann'));
    expect(maker.body).toMatchObject({ status: 'expired', filled: 0 });
    expect(await b.usdtTotal()).toBeGreaterThan(0n);
  });
});
