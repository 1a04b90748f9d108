import request from 'supertest';
import { copyBed, type CopyBed } from './helpers';

let b: CopyBed;
beforeEach(async () => {
  b = await copyBed();
});
afterEach(async () => b.ctx.cleanup());

const M = '/api/copy-master';

describe('copy master: create and read', () => {
  it('creates a master funded from the wallet and answers the full profile', async () => {
    await b.deposit('max', 12_000);
    const r = await b.post('max', M, b.masterBody({ socialAUrl: 'https://x.example/max' }));
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual([
      'avatarBlobId', 'balance', 'closedAt', 'commissionRate', 'createdAt', 'currencyAnalytics', 'currencyCode', 'dailyPnl',
      'equity', 'followersEquity', 'futuresAccountId', 'futuresAccountName', 'globalRank', 'hashtags', 'id', 'leverage',
      'maxDrawdownPercent', 'name', 'rank', 'risk', 'slaveIncomePercentage', 'socialAUrl', 'socialBUrl', 'socialCUrl',
      'socialDUrl', 'status', 'strategyDescription', 'strategyName', 'subscribersCount', 'todayPnlPercent', 'totalCommissions', 'totalPnl', 'totalPnlPercent', 'totalProfitShared',
      'totalTrades', 'tradingDays', 'usedMargin',
    ]);
    expect(r.body).toMatchObject({
      id: r.body.futuresAccountId, name: 'Max', strategyName: 'Trend', futuresAccountName: 'Trend', leverage: 10,
      currencyCode: 'USDT', slaveIncomePercentage: 20, commissionRate: 0, hashtags: ['btc', 'trend'], closedAt: null,
      status: 'Active', balance: 10_000, equity: 10_000, usedMargin: 0, totalPnl: 0, totalPnlPercent: 0, subscribersCount: 0,
      followersEquity: 0, risk: 1, rank: 1, globalRank: 1, tradingDays: 0, totalTrades: 0, dailyPnl: {}, maxDrawdownPercent: 0,
      socialAUrl: 'https://x.example/max', socialBUrl: null, socialCUrl: null, socialDUrl: null,
    });
    expect(await b.walletUsdt('max')).toBe(2_000);
    expect(await b.account('max', r.body.id)).toMatchObject({ balance: 10_000, available: 10_000 });
    const a = await b.pub(`${M}/${r.body.id}/analytics`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(r.body);
  });

  it('rejects bad bodies (400, unknown fields too), a missing token (401) and an empty wallet (422)', async () => {
    await b.deposit('max', 100);
    expect((await b.post('max', M, b.masterBody({ extra: 1 }))).status).toBe(400);
    expect((await b.post('max', M, b.masterBody({ amount: -1 }))).status).toBe(400);
    expect((await b.post('max', M, b.masterBody({ slaveIncomePercentage: 101 }))).status).toBe(400);
    const noToken = await request(b.app).post(M).send(b.masterBody());
    expect(noToken.status).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    const poor = await b.post('max', M, b.masterBody({ amount: 1_000 }));
    expect(poor.status).toBe(422);
    expect(poor.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect((await b.get('max', '/api/futures/accounts')).body).toEqual([]);
    expect((await request(b.app).get(M)).status).toBe(401);
  });

  it('404s the analytics, positions and slaves of a master that does not exist; 403s a non-owner reading slaves', async () => {
    expect((await b.pub(`${M}/999999/analytics`)).status).toBe(404);
    for (const list of ['positions', 'positions-history', 'trades']) expect((await b.pub(`${M}/999999/${list}`)).status).toBe(404);
    expect((await b.del('max', `${M}/999999`)).status).toBe(404);
    expect((await b.get('max', `${M}/999999/slaves`)).status).toBe(404);
    expect((await b.pub(`${M}/abc/analytics`)).status).toBe(400);
    const id = await b.master('max');
    const other = await b.get('eve', `${M}/${id}/slaves`);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('NOT_MASTER_OWNER');
    expect((await b.pub(`${M}/${id}/slaves`)).status).toBe(401);
    const own = await b.get('max', `${M}/${id}/slaves`);
    expect(own.status).toBe(200);
    expect(own.body).toEqual([]);
    expect((await b.del('eve', `${M}/${id}`)).status).toBe(403);
  });

  it('lists the caller\'s masters with filters and sortPreset; onlyClosed gives the closed ones', async () => {
    const a = await b.master('max', { strategyName: 'A' });
    const c = await b.master('max', { strategyName: 'C', amount: 500 });
    await b.master('bob');
    let r = await b.get('max', `${M}?sortPreset=newest`);
    expect(r.status).toBe(200);
    expect(r.body.map((m: { id: number }) => m.id)).toEqual([c, a]);
    r = await b.get('max', `${M}?OnlyClosed=false&followersFrom=1`);
    expect(r.body).toEqual([]);
    expect((await b.get('max', `${M}?sortPreset=best`)).status).toBe(400);
    expect((await b.get('max', `${M}?drawdownFrom=1`)).status).toBe(400);
    expect((await b.del('max', `${M}/${c}`)).status).toBe(200);
    expect((await b.get('max', M)).body.map((m: { id: number }) => m.id)).toEqual([a]);
    const closed = await b.get('max', `${M}?onlyClosed=true`);
    expect(closed.body.map((m: { id: number }) => m.id)).toEqual([c]);
    expect(closed.body[0]).toMatchObject({ status: 'Closed', rank: 0 });
    expect(closed.body[0].closedAt).not.toBeNull();
  });

  it('pages the public leaderboard: open masters only, 10 by default, at most 100, filters and presets', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push(await b.master(`m${i}`, { amount: 100 + i }));
    await b.del('m0', `${M}/${ids[0]}`);
    let r = await b.pub(`${M}/public-masters`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, pageSize: 10, totalCount: 11, totalPages: 2 });
    expect(r.body.items).toHaveLength(10);
    r = await b.pub(`${M}/public-masters?Page=2&sortPreset=newest`);
    expect(r.body.items.map((m: { id: number }) => m.id)).toEqual([ids[1]]);
    expect((await b.pub(`${M}/public-masters?pageSize=100`)).status).toBe(200);
    const tooBig = await b.pub(`${M}/public-masters?pageSize=101`);
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.code).toBe('VALIDATION_FAILED');
    expect((await b.pub(`${M}/public-masters?unknown=1`)).status).toBe(400);
    r = await b.pub(`${M}/public-masters?drawdownFrom=0&drawdownTo=0&daysTo=0&roiFrom=0&aumTo=0&followersTo=0`);
    expect(r.body.totalCount).toBe(11);
    r = await b.pub(`${M}/public-masters?roiFrom=0.01`);
    expect(r.body.totalCount).toBe(0);
  });
});
