import request from 'supertest';
import { parseEntry } from '../../../src/platform/market-event';
import { bearer } from '../../support/harness';
import { admin, futuresBed } from '../futures/helpers';

export type CopyBed = Awaited<ReturnType<typeof copyBed>>;

/** The futures test bed plus copy-trading helpers; `pump` plays the dispatcher for the mirror. */
export async function copyBed(overrides: Record<string, string> = {}) {
  const b = await futuresBed(overrides);
  let lastId = '0-0';

  const post = (user: string, path: string, body: Record<string, unknown>) =>
    request(b.app).post(path).set('Authorization', bearer(user)).send(body);
  const del = (user: string, path: string) => request(b.app).delete(path).set('Authorization', bearer(user));
  const pub = (path: string) => request(b.app).get(path);

  async function deposit(user: string, amount: number) {
    const d = await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: user, currencyCode: 'USDT', amount });
    expect(d.status).toBe(200);
  }

  async function walletUsdt(user: string): Promise<number> {
    const r = await b.get(user, '/api/wallet/balances');
    return r.body.find((x: { currencyCode: string }) => x.currencyCode === 'USDT')?.available ?? 0;
  }

  const masterBody = (extra: Record<string, unknown> = {}) => ({
    name: 'Max', strategyName: 'Trend', strategyDescription: 'Slow #btc #trend', leverage: 10, currencyCode: 'USDT',
    slaveIncomePercentage: 20, commissionRate: 0, amount: 10_000, ...extra,
  });

  /** A funded master; returns its id (= its futures account id). */
  async function master(user: string, extra: Record<string, unknown> = {}): Promise<number> {
    const body = masterBody(extra);
    await deposit(user, body.amount as number);
    const r = await post(user, '/api/copy-master', body);
    expect(r.status).toBe(200);
    return r.body.id;
  }

  /** A slave account holding `fund` USDT of free balance. */
  async function slave(user: string, fund = 5_000, leverage = 10): Promise<number> {
    await deposit(user, fund);
    const r = await post(user, '/api/copy-slave', { name: `${user}-copy`, leverage, currencyCode: 'USDT' });
    expect(r.status).toBe(200);
    const t = await post(user, '/api/wallet/transfer', {
      fromFuturesAccountId: null, toFuturesAccountId: r.body.id, currencyCode: 'USDT', amount: fund,
    });
    expect(t.status).toBe(200);
    return r.body.id;
  }

  const start = (user: string, masterId: number, slaveId: number, margin: number) =>
    post(user, '/api/copy-slave/startMasterCopy', { copyMasterFuturesAccountId: masterId, copySlaveFuturesAccountId: slaveId, margin });

  async function subscribe(user: string, masterId: number, slaveId: number, margin: number) {
    const r = await start(user, masterId, slaveId, margin);
    expect(r.status).toBe(200);
    return r.body;
  }

  /** A market maker quoting both sides of BTC_USDT around `mid`, deep enough for every test order. */
  async function liquidity(mid = 100, amount = 50) {
    const mm = await b.fundedAccount('mm', 1_000_000, 10);
    await b.order('mm', mm, true, mid - 1, amount);
    await b.order('mm', mm, false, mid + 1, amount);
    return mm;
  }

  /** Hands every new BTC_USDT futures stream entry to the mirror, as the dispatcher would. */
  async function pump() {
    const entries = await b.ctx.redis.xrange(b.ctx.keys.events('futures', 'BTC_USDT'), `(${lastId}`, '+');
    const outs = [];
    for (const [id, fields] of entries) {
      outs.push(await b.ctx.copy.mirror.handleEntry(parseEntry(id, fields)));
      lastId = id;
    }
    return outs;
  }

  /** Every stream entry from the start, replayed. */
  async function replayAll() {
    const entries = await b.ctx.redis.xrange(b.ctx.keys.events('futures', 'BTC_USDT'), '-', '+');
    for (const [id, fields] of entries) await b.ctx.copy.mirror.handleEntry(parseEntry(id, fields));
  }

  /** Futures records of a user (every account), oldest first. */
  async function orders(user: string) {
    const r = await b.get(user, '/api/futures/trade/orders-history?PageSize=500');
    expect(r.status).toBe(200);
    return [...r.body].reverse();
  }

  return { ...b, post, del, pub, deposit, walletUsdt, masterBody, master, slave, start, subscribe, liquidity, pump, replayAll, orders };
}
