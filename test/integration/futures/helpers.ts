import request from 'supertest';
import type { Express } from 'express';
import { scanKeys } from '../../../src/platform/redis/scan-keys';
import { bearer, createApp, testContext } from '../../support/harness';

export type Ctx = Awaited<ReturnType<typeof testContext>>;
export const admin = bearer('ops', true);

/** A test bed: a context of its own, the app, and helpers that assert the happy path. */
export async function futuresBed(overrides: Record<string, string> = {}) {
  const ctx = await testContext(overrides);
  return bedFor(ctx, createApp(ctx));
}

export function bedFor(ctx: Ctx, app: Express) {

  async function fundedAccount(user: string, amount = 100_000, leverage = 10): Promise<number> {
    const d = await request(app).post('/api/admin/deposits').set('Authorization', admin)
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
    request(app).post('/api/admin/index-price').set('Authorization', admin).send({ currencyPairCode, price });

  /** Every unit of the margin currency: wallets, accounts (free and locked), fees, insurance, pnl pool. */
  async function usdtTotal(): Promise<bigint> {
    const k = ctx.keys;
    let total = 0n;
    for await (const { keys } of scanKeys(ctx.redis, `${k.engine}*`)) {
      for (const key of keys) {
        if (key.endsWith(':avail') || key.endsWith(':rsv')) total += BigInt((await ctx.redis.hget(key, 'USDT')) ?? '0');
        else if (key.startsWith(`${k.engine}facct:`)) {
          const [b, l] = await ctx.redis.hmget(key, 'balance', 'locked');
          total += BigInt(b ?? '0') + BigInt(l ?? '0');
        }
      }
    }
    for (const key of [k.feesCollected(), k.insuranceFund(), k.futuresPnlPool()]) {
      total += BigInt((await ctx.redis.hget(key, 'USDT')) ?? '0');
    }
    return total;
  }

  return { ctx, app, fundedAccount, create, order, get, put, record, account, setIndex, usdtTotal };
}
