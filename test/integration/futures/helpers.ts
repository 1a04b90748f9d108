import request from 'supertest';
import type { Express } from 'express';
import { bearer, createApp, testContext } from '../../support/harness';
import { DepositLedger, expectConserved } from '../../support/money';

export type Ctx = Awaited<ReturnType<typeof testContext>>;
export const admin = bearer('ops', true);
/** An administrator token signed now: a test that moves Date.now by days needs one issued on its clock. */
const adminNow = () => bearer('ops', true);

/** A test bed: a context of its own, the app, and helpers that assert the happy path. */
export async function futuresBed(overrides: Record<string, string> = {}) {
  const ctx = await testContext(overrides);
  return bedFor(ctx, createApp(ctx));
}

export function bedFor(ctx: Ctx, app: Express) {

  async function fundedAccount(user: string, amount = 100_000, leverage = 10): Promise<number> {
    const d = await request(app).post('/api/admin/deposits').set('Authorization', adminNow())
      .send({ userId: user, currencyCode: 'USDT', amount });
    expect(d.status).toBe(200);
    const a = await request(app).post('/api/futures/accounts').set('Authorization', bearer(user))
      .send({ name: `${user}-main`, currencyCode: 'USDT', leverage });
    expect(a.status).toBe(200);
    const t = await request(app).post('/api/wallet/transfer').set('Authorization', bearer(user))
      .send({ fromFuturesAccountId: null, toFuturesAccountId: a.body.id, currencyCode: 'USDT', amount });
    expect(t.status).toBe(200);
    return a.body.id;
  }

  const create = (user: string, body: Record<string, unknown>) =>
    request(app).post('/api/futures/trade/create-order').set('Authorization', bearer(user)).send(body);

  async function order(user: string, acct: number, isLong: boolean, price: number | null, amount: number,
    extra: Record<string, unknown> = {}): Promise<number> {
    const r = await create(user, {
      isMarket: price === null, isLong, price: price ?? 0, amount, currencyPairCode: 'BTC_USDT',
      futuresAccountId: acct, ...extra,
    });
    expect(r.status).toBe(200);
    return r.body.id;
  }

  const get = (user: string, path: string) => request(app).get(path).set('Authorization', bearer(user));
  const put = (user: string, path: string, body: Record<string, unknown>) =>
    request(app).put(path).set('Authorization', bearer(user)).send(body);

  async function record(user: string, id: number) {
    const r = await get(user, '/api/futures/trade/orders-history?PageSize=500');
    expect(r.status).toBe(200);
    return r.body.find((o: { id: number }) => o.id === id);
  }

  async function account(user: string, id: number) {
    const r = await get(user, '/api/futures/accounts');
    expect(r.status).toBe(200);
    return r.body.find((a: { id: number }) => a.id === id);
  }

  const setIndex = (currencyPairCode: string, price: number) =>
    request(app).post('/api/admin/index-price').set('Authorization', adminNow()).send({ currencyPairCode, price });

  const ledger = DepositLedger.of(ctx);

  /**
   * Every unit of the margin currency (wallets, accounts free and locked, fees, insurance, pnl pool),
   * checked first against what came in: deposits − withdrawals must equal it (test/support/money.ts).
   */
  const usdtTotal = (): Promise<bigint> => expectConserved(ctx, ledger, 'USDT');

  /** An operator's top-up of the insurance fund: money from outside, so the ledger counts it. */
  async function seedInsurance(minor: number): Promise<void> {
    await ctx.redis.hincrby(ctx.keys.insuranceFund(), 'USDT', minor);
    ledger.credit('USDT', BigInt(minor));
  }

  return { ctx, app, fundedAccount, create, order, get, put, record, account, setIndex, usdtTotal, seedInsurance };
}
