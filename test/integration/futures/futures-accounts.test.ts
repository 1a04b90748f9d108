import request from 'supertest';
import { bearer } from '../../support/harness';
import { admin, futuresBed } from './helpers';

type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;

beforeEach(async () => {
  b = await futuresBed();
});
afterEach(async () => b.ctx.cleanup());

const transfer = (user: string, body: Record<string, unknown>) =>
  request(b.app).post('/api/wallet/transfer').set('Authorization', bearer(user)).send(body);

async function walletUsdt(user: string): Promise<number> {
  const r = await b.get(user, '/api/wallet/balances');
  return r.body.find((x: { currencyCode: string }) => x.currencyCode === 'USDT')?.available ?? 0;
}

describe('futures accounts and transfers', () => {
  it('opens an account, lists it, and moves money in and out of it', async () => {
    await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: 'ann', currencyCode: 'USDT', amount: 1000 });
    const a = await request(b.app).post('/api/futures/accounts').set('Authorization', bearer('ann'))
      .send({ name: 'main', currencyCode: 'USDT', leverage: 20 });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ id: a.body.id, name: 'main', currencyCode: 'USDT', leverage: 20, balance: 0, available: 0, usedMargin: 0, equity: 0 });

    const t = await transfer('ann', { fromFuturesAccountId: null, toFuturesAccountId: a.body.id, currencyCode: 'USDT', amount: 400 });
    expect(t.status).toBe(200);
    expect(await walletUsdt('ann')).toBe(600);
    expect(await b.account('ann', a.body.id)).toMatchObject({ balance: 400, available: 400, usedMargin: 0, equity: 400 });

    const back = await transfer('ann', { fromFuturesAccountId: a.body.id, toFuturesAccountId: null, currencyCode: 'USDT', amount: 150.5 });
    expect(back.status).toBe(200);
    expect(await walletUsdt('ann')).toBe(750.5);
    expect(await b.account('ann', a.body.id)).toMatchObject({ available: 249.5 });
    const list = await b.get('ann', '/api/futures/accounts');
    expect(list.body).toHaveLength(1);
    expect((await b.get('someone', '/api/futures/accounts')).body).toEqual([]);
  });

  it('refuses to move margin that is in use, and moves the free part', async () => {
    const acct = await b.fundedAccount('ann', 100);
    await b.order('ann', acct, true, 100, 5); // reserves 50 + fees at 10x
    const before = await b.account('ann', acct);
    const r = await transfer('ann', { fromFuturesAccountId: acct, toFuturesAccountId: null, currencyCode: 'USDT', amount: 60 });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('MARGIN_IN_USE');
    expect(await b.account('ann', acct)).toEqual(before);
    const ok = await transfer('ann', { fromFuturesAccountId: acct, toFuturesAccountId: null, currencyCode: 'USDT', amount: 40 });
    expect(ok.status).toBe(200);
  });

  it('rejects bad accounts and transfers with the documented error bodies and changes nothing', async () => {
    const acct = await b.fundedAccount('ann', 100);
    const other = await b.fundedAccount('bob', 100);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ fromFuturesAccountId: other, toFuturesAccountId: null, currencyCode: 'USDT', amount: 1 }, 404, 'ACCOUNT_NOT_FOUND'],
      [{ fromFuturesAccountId: null, toFuturesAccountId: 999999, currencyCode: 'USDT', amount: 1 }, 404, 'ACCOUNT_NOT_FOUND'],
      [{ fromFuturesAccountId: acct, toFuturesAccountId: null, currencyCode: 'BTC', amount: 1 }, 422, 'CURRENCY_MISMATCH'],
      [{ fromFuturesAccountId: null, toFuturesAccountId: null, currencyCode: 'USDT', amount: 1 }, 400, 'VALIDATION_FAILED'],
      [{ fromFuturesAccountId: null, toFuturesAccountId: acct, currencyCode: 'USDT', amount: 1 }, 422, 'INSUFFICIENT_BALANCE'],
      [{ fromFuturesAccountId: acct, toFuturesAccountId: null, currencyCode: 'USDT', amount: 101 }, 422, 'INSUFFICIENT_BALANCE'],
      [{ fromFuturesAccountId: null, toFuturesAccountId: acct, currencyCode: 'USDT', amount: -1 }, 400, 'VALIDATION_FAILED'],
      [{ toFuturesAccountId: acct, currencyCode: 'USDT', amount: 1 }, 400, 'VALIDATION_FAILED'],
      [{ fromFuturesAccountId: null, toFuturesAccountId: acct, currencyCode: 'USDT', amount: 1, extra: 1 }, 400, 'VALIDATION_FAILED'],
    ];
    const before = [await b.account('ann', acct), await b.account('bob', other), await b.usdtTotal()];
    for (const [body, status, code] of cases) {
      const r = await transfer('ann', body);
      expect([r.status, r.body.error?.code]).toEqual([status, code]);
      expect(r.body.error.message).toEqual(expect.any(String));
      expect(Array.isArray(r.body.error.details)).toBe(true);
    }
    expect([await b.account('ann', acct), await b.account('bob', other), await b.usdtTotal()]).toEqual(before);

    const acc = (body: Record<string, unknown>) => request(b.app).post('/api/futures/accounts').set('Authorization', bearer('ann')).send(body);
    expect((await acc({ name: 'x', currencyCode: 'USDT', leverage: 101 })).body.error.code).toBe('LEVERAGE_ABOVE_MAX');
    expect((await acc({ name: 'x', currencyCode: 'BTC', leverage: 5 })).body.error.code).toBe('UNSUPPORTED_MARGIN_CURRENCY');
    expect((await acc({ name: 'x', currencyCode: 'USDT', leverage: 0 })).status).toBe(400);
    expect((await acc({ name: 'x', currencyCode: 'USDT', leverage: 5, color: 'red' })).status).toBe(400);
    expect((await request(b.app).get('/api/futures/accounts')).status).toBe(401);
    expect((await b.get('ann', '/api/futures/accounts')).body).toHaveLength(1);
  });
});
