import request from 'supertest';
import { copyBed, type CopyBed } from './helpers';

let b: CopyBed;
beforeEach(async () => {
  b = await copyBed();
});
afterEach(async () => b.ctx.cleanup());

const S = '/api/copy-slave';
const body = (copyMasterFuturesAccountId: number, copySlaveFuturesAccountId: number, margin: number) => ({
  copyMasterFuturesAccountId, copySlaveFuturesAccountId, margin,
});

describe('copy slave accounts', () => {
  it('creates, lists and deletes a slave; deleting returns its free balance to the wallet', async () => {
    const r = await b.post('sam', S, { name: 'sam-copy', leverage: 5, currencyCode: 'USDT' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: r.body.futuresAccountId, futuresAccountId: r.body.futuresAccountId, leverage: 5, currencyCode: 'USDT',
      name: 'sam-copy', futuresAccountName: 'sam-copy', openPositionsCount: 0, activeSubscriptionsCount: 0,
    });
    expect((await b.get('sam', S)).body).toEqual([r.body]);
    expect((await b.get('eve', S)).body).toEqual([]);
    await b.deposit('sam', 300);
    await b.post('sam', '/api/wallet/transfer', { fromFuturesAccountId: null, toFuturesAccountId: r.body.id, currencyCode: 'USDT', amount: 300 });
    expect(await b.walletUsdt('sam')).toBe(0);
    expect((await b.del('eve', `${S}/${r.body.id}`)).status).toBe(404);
    const d = await b.del('sam', `${S}/${r.body.id}`);
    expect(d.status).toBe(200);
    expect(await b.walletUsdt('sam')).toBe(300);
    expect((await b.get('sam', S)).body).toEqual([]);
    expect((await b.del('sam', `${S}/${r.body.id}`)).status).toBe(404);
  });

  it('rejects bad bodies (400), missing tokens (401) and a currency without futures (422)', async () => {
    expect((await b.post('sam', S, { name: 'x', leverage: 5, currencyCode: 'USDT', extra: true })).status).toBe(400);
    expect((await b.post('sam', S, { name: 'x', leverage: 0, currencyCode: 'USDT' })).status).toBe(400);
    expect((await b.post('sam', S, { name: 'x', leverage: 5 })).status).toBe(400);
    expect((await b.post('sam', S, { name: 'x', leverage: 5, currencyCode: 'BTC' })).status).toBe(422);
    for (const path of [S, `${S}/following`, `${S}/1/subscriptions`, `${S}/1/positions`, `${S}/1/2/settings`, `${S}/1/2/analytics`]) {
      expect((await request(b.app).get(path)).status).toBe(401);
    }
    expect((await request(b.app).post(`${S}/startMasterCopy`).send(body(1, 2, 3))).status).toBe(401);
    expect((await request(b.app).delete(`${S}/1`)).status).toBe(401);
  });
});

describe('subscriptions', () => {
  it('start allocates margin into the subscription; update moves the difference; settings and analytics read it', async () => {
    const m = await b.master('max');
    const sam = await b.slave('sam', 1_000);
    const r = await b.start('sam', m, sam, 400);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      masterName: 'Max', masterFuturesAccountId: m, copySlaveFuturesAccountId: sam, currencyCode: 'USDT', totalProfit: 0,
      totalProfitPercent: 0, closingDate: null, initialEquity: 400, settledEquity: 400, commission: 0, reason: null, isActive: true,
    });
    expect((await b.account('sam', sam)).available).toBe(600);
    const accounts = (await b.get('sam', '/api/futures/accounts')).body;
    expect(accounts.find((a: { name: string }) => a.name.startsWith(`copy #${r.body.id}`))).toMatchObject({ available: 400 });

    expect((await b.start('sam', m, sam, 10)).status).toBe(409);
    const up = await b.post('sam', `${S}/updateMasterCopySettings`, body(m, sam, 700));
    expect(up.status).toBe(200);
    expect(up.body).toEqual({
      copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: sam, margin: 700, stopLossPercent: null, takeProfitPercent: null,
      maxSlippagePercent: 0.5,
    });
    expect((await b.account('sam', sam)).available).toBe(300);
    expect((await b.post('sam', `${S}/updateMasterCopySettings`, body(m, sam, 5_000))).status).toBe(422);
    const risk = { stopLossPercent: 30, takeProfitPercent: 80, maxSlippagePercent: 1.5 };
    expect((await b.post('sam', `${S}/updateMasterCopySettings`, { ...body(m, sam, 250), ...risk })).status).toBe(200);
    expect((await b.account('sam', sam)).available).toBe(750);
    expect((await b.get('sam', `${S}/${sam}/${m}/settings`)).body).toEqual({
      copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: sam, margin: 250, ...risk,
    });
    await b.post('sam', `${S}/updateMasterCopySettings`, { ...body(m, sam, 250), takeProfitPercent: null });
    expect((await b.get('sam', `${S}/${sam}/${m}/settings`)).body).toMatchObject({ stopLossPercent: 30, takeProfitPercent: null });
    const a = await b.get('sam', `${S}/${sam}/${m}/analytics`);
    expect(a.status).toBe(200);
    expect(Object.keys(a.body).sort()).toEqual([
      'copyMasterFuturesAccountId', 'copyMasterProfit', 'copySlaveFuturesAccountId', 'createTimestamp', 'currencyAnalytics',
      'currencyCode', 'currentPeriodSlaveProfit', 'dailyPnl', 'deactivatedAt', 'deactivationReason', 'initialEquity', 'isActive',
      'masterName', 'totalCommissions', 'totalFunding', 'totalPnl', 'totalPnlPercent', 'totalSlaveProfit', 'totalTrades',
      'tradingDays', 'unrealizedPnl',
    ]);
    expect(a.body).toMatchObject({ copySlaveFuturesAccountId: sam, copyMasterFuturesAccountId: m, isActive: true, initialEquity: 400, totalSlaveProfit: 0 });
    expect((await b.get('max', `/api/copy-master/${m}/analytics`)).body).toMatchObject({ subscribersCount: 1, followersEquity: 250 });
  });

  it('404s settings and analytics of a subscription that does not exist, and another user\'s slave', async () => {
    const m = await b.master('max');
    const sam = await b.slave('sam', 100);
    expect((await b.get('sam', `${S}/${sam}/${m}/settings`)).status).toBe(404);
    expect((await b.get('sam', `${S}/${sam}/${m}/analytics`)).status).toBe(404);
    await b.subscribe('sam', m, sam, 50);
    expect((await b.get('eve', `${S}/${sam}/${m}/settings`)).status).toBe(404);
    expect((await b.get('eve', `${S}/${sam}/subscriptions`)).status).toBe(404);
    expect((await b.post('sam', `${S}/updateMasterCopySettings`, body(999999, sam, 10))).status).toBe(404);
    expect((await b.start('sam', 999999, sam, 10)).status).toBe(404);
    expect((await b.start('eve', m, sam, 10)).status).toBe(404);
  });

  it('refuses margin the slave does not have (422) and a second active subscription (409); finishing twice is 409', async () => {
    const m = await b.master('max');
    const sam = await b.slave('sam', 100);
    const poor = await b.start('sam', m, sam, 100.5);
    expect(poor.status).toBe(422);
    expect(poor.body.error.code).toBe('INSUFFICIENT_BALANCE');
    await b.subscribe('sam', m, sam, 100);
    const dup = await b.start('sam', m, sam, 1);
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('SUBSCRIPTION_EXISTS');
    expect((await b.del('sam', `${S}/${sam}`)).status).toBe(409);
    const finish = { copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: sam, closeOrders: false };
    expect((await b.post('sam', `${S}/finishMasterCopy`, { ...finish, more: 1 })).status).toBe(400);
    expect((await b.post('sam', `${S}/finishMasterCopy`, finish)).status).toBe(200);
    const again = await b.post('sam', `${S}/finishMasterCopy`, finish);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SUBSCRIPTION_FINISHED');
    expect((await b.account('sam', sam)).available).toBe(100);
    const update = await b.post('sam', `${S}/updateMasterCopySettings`, body(m, sam, 10));
    expect(update.status).toBe(409);
    expect(update.body.error.code).toBe('SUBSCRIPTION_FINISHED');
    expect((await b.post('sam', `${S}/startMasterCopy`, { ...body(m, sam, 60), margin: 0 })).status).toBe(400);
    expect((await b.post('sam', `${S}/startMasterCopy`, { ...body(m, sam, 60), note: 'x' })).status).toBe(400);
    expect((await b.start('sam', m, sam, 60)).status).toBe(200);
  });

  it('pages following and subscriptions: 10 by default, 500 at most, active or history', async () => {
    const sam = await b.slave('sam', 1_200);
    const masters: number[] = [];
    for (let i = 0; i < 12; i++) masters.push(await b.master(`m${i}`, { amount: 100 }));
    for (const m of masters) await b.subscribe('sam', m, sam, 100);
    await b.post('sam', `${S}/finishMasterCopy`, { copyMasterFuturesAccountId: masters[0], copySlaveFuturesAccountId: sam });
    let r = await b.get('sam', `${S}/following`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, pageSize: 10, totalCount: 11, totalPages: 2 });
    expect(r.body.items).toHaveLength(10);
    r = await b.get('sam', `${S}/following?OnlyHistory=true`);
    expect(r.body.items.map((s: { masterFuturesAccountId: number }) => s.masterFuturesAccountId)).toEqual([masters[0]]);
    expect(r.body.items[0]).toMatchObject({ isActive: false, reason: 'SLAVE_FINISHED' });
    expect(r.body.items[0].closingDate).not.toBeNull();
    expect((await b.get('sam', `${S}/following?pageSize=501`)).status).toBe(400);
    r = await b.get('sam', `${S}/${sam}/subscriptions?page=2`);
    expect(r.body).toMatchObject({ page: 2, pageSize: 10, totalCount: 11, totalPages: 2 });
    expect(r.body.items).toHaveLength(1);
    r = await b.get('sam', `${S}/${sam}/subscriptions?active=false`);
    expect(r.body.totalCount).toBe(1);
    expect((await b.get('sam', `${S}/${sam}/positions`)).body).toEqual({ items: [], page: 1, pageSize: 100, totalCount: 0, totalPages: 0 });
    expect((await b.get('sam', `${S}/${sam}/trades`)).body).toMatchObject({ pageSize: 100, totalCount: 0 });
    expect((await b.get('sam', `${S}/${sam}/positions-history?pageSize=501`)).status).toBe(400);
    expect((await b.get('sam', `${S}/${sam}`)).status).toBe(404);
  });
});
