import BigNumber from 'bignumber.js';
import { copyBed, type CopyBed } from './helpers';

let b: CopyBed;
let masterId: number;
let mm: number;
beforeEach(async () => {
  b = await copyBed();
  mm = await b.liquidity(100);
  masterId = await b.master('max');
});
afterEach(async () => b.ctx.cleanup());

const TRADE = '/api/futures/trade';
const LOT = new BigNumber('0.0001');

/** docs/copy-trading.md: masterAmount × margin / masterEquity, rounded down to the lot. */
const scaled = (masterAmount: number, margin: number, masterEquity: number) =>
  new BigNumber(masterAmount).times(margin).div(masterEquity).div(LOT).integerValue(BigNumber.ROUND_FLOOR).times(LOT).toNumber();

async function masterEquity(): Promise<number> {
  return (await b.pub(`/api/copy-master/${masterId}/analytics`)).body.equity;
}

/** The follower orders a user holds (clientOrderId copy:...). */
async function followerOrders(user: string) {
  return (await b.orders(user)).filter((o: { clientOrderId: string | null }) => o.clientOrderId?.startsWith('copy:'));
}

describe('mirroring a master onto its subscriptions', () => {
  it('places scaled IOC limit orders per master fill, records a below-minimum skip, and a replay places nothing twice', async () => {
    const sam = await b.slave('sam', 5_000);
    const sue = await b.slave('sue', 100);
    const samSub = await b.subscribe('sam', masterId, sam, 1_000);
    const sueSub = await b.subscribe('sue', masterId, sue, 5);
    const mOrder = await b.order('max', masterId, true, null, 2);
    const [out] = (await b.pump()).slice(-1);
    expect(out).toMatchObject({ placed: 1, skipped: 1, failed: 0 });

    const expected = scaled(2, 1_000, await masterEquity());
    expect(expected).toBeGreaterThan(0);
    const [f] = await followerOrders('sam');
    expect(f).toMatchObject({
      clientOrderId: expect.stringMatching(new RegExp(`^copy:${mOrder}:${samSub.id}:\\d+$`)), isLong: true, isMarket: false,
      price: 101, amount: expected, futuresOrderStatus: 50,
      filled: expected, leverage: 10, currencyPairCode: 'BTC_USDT',
    });
    expect(await followerOrders('sue')).toEqual([]);
    const skips = await b.ctx.copy.mirror.skips(sueSub.id);
    expect(skips).toEqual([{ masterOrderId: mOrder, tradeId: expect.any(Number), reason: 'BELOW_PAIR_MINIMUM', timestamp: expect.any(String) }]);

    const before = await b.orders('sam');
    await b.replayAll();
    await b.replayAll();
    expect(await b.orders('sam')).toEqual(before);
    expect(await b.ctx.copy.mirror.skips(sueSub.id)).toEqual(skips);

    const positions = await b.get('sam', `/api/copy-slave/${sam}/positions`);
    expect(positions.status).toBe(200);
    expect(positions.body).toMatchObject({ page: 1, pageSize: 100, totalCount: 1, totalPages: 1 });
    expect(positions.body.items[0]).toMatchObject({ id: f.id, amountInPosition: expected });
    const perMaster = await b.get('sam', `/api/copy-slave/${sam}/${masterId}/positions`);
    expect(perMaster.body.items.map((p: { id: number }) => p.id)).toEqual([f.id]);
    expect((await b.get('sam', `/api/copy-slave/${sam}/999999/positions`)).body.totalCount).toBe(0);
    const pub = await b.pub(`/api/copy-master/${masterId}/positions`);
    expect(pub.body.items.map((p: { id: number }) => p.id)).toEqual([mOrder]);
    const slaves = await b.get('max', `/api/copy-master/${masterId}/slaves`);
    // by id: slaves' accounts are registered at their followers' homes, with ids of no creation order there
    expect(slaves.body).toEqual([
      { id: sam, futuresAccountId: sam, leverage: 10, currencyCode: 'USDT', name: 'sam-copy', futuresAccountName: 'sam-copy',
        openPositionsCount: 1, activeSubscriptionsCount: 1 },
      { id: sue, futuresAccountId: sue, leverage: 10, currencyCode: 'USDT', name: 'sue-copy', futuresAccountName: 'sue-copy',
        openPositionsCount: 0, activeSubscriptionsCount: 1 },
    ].sort((x, y) => x.id - y.id));
  });

  it('does not copy, on a replay, a master order that stopped working before the subscription started', async () => {
    await b.order('max', masterId, true, null, 1);
    await b.pump();
    const sam = await b.slave('sam');
    await b.subscribe('sam', masterId, sam, 1_000);
    await b.replayAll();
    expect(await followerOrders('sam')).toEqual([]);
    const later = await b.order('max', masterId, false, null, 1);
    await b.pump();
    expect((await followerOrders('sam')).map((o: { clientOrderId: string }) => o.clientOrderId)).toEqual([
      expect.stringMatching(new RegExp(`^copy:${later}:`)),
    ]);
  });

  it('skips a subscription whose account cannot carry the order, with the engine\'s reason', async () => {
    const sam = await b.slave('sam', 5_000, 1);
    const sub = await b.subscribe('sam', masterId, sam, 2_000);
    // at leverage 1 the follower needs its whole notional: a master order worth more than the master's
    // equity scales to more than the subscription's margin
    await b.order('mm', mm, false, 101, 200);
    const mOrder = await b.order('max', masterId, true, null, 150);
    await b.pump();
    expect(await b.ctx.copy.mirror.skips(sub.id)).toEqual([
      { masterOrderId: mOrder, tradeId: expect.any(Number), reason: 'INSUFFICIENT_MARGIN', timestamp: expect.any(String) },
    ]);
  });

  it('closes the followers\' positions when the master closes; history and trades list them', async () => {
    const sam = await b.slave('sam');
    const sub = await b.subscribe('sam', masterId, sam, 1_000);
    const mOrder = await b.order('max', masterId, false, null, 1);
    await b.pump();
    const [f] = await followerOrders('sam');
    expect(f).toMatchObject({ clientOrderId: expect.stringMatching(new RegExp(`^copy:${mOrder}:${sub.id}:`)), isLong: false, futuresOrderStatus: 50 });
    expect((await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true })).status).toBe(200);
    await b.pump();
    expect((await b.record('sam', f.id)).futuresOrderStatus).toBe(20);
    await b.replayAll();
    expect((await followerOrders('sam')).map((o: { id: number }) => o.id)).toEqual([f.id]);

    const hist = await b.get('sam', `/api/copy-slave/${sam}/positions-history`);
    expect(hist.body.items.map((p: { id: number }) => p.id)).toEqual([f.id]);
    expect((await b.get('sam', `/api/copy-slave/${sam}/positions-history?side=long`)).body.totalCount).toBe(0);
    const trades = await b.get('sam', `/api/copy-slave/${sam}/${masterId}/trades?sortDir=asc`);
    expect(trades.status).toBe(200);
    expect(trades.body.items).toHaveLength(2);
    expect(trades.body.items.every((t: { orderId: number }) => t.orderId === f.id)).toBe(true);
    const mTrades = await b.pub(`/api/copy-master/${masterId}/trades?pageSize=1`);
    expect(mTrades.body).toMatchObject({ page: 1, pageSize: 1, totalCount: 2, totalPages: 2 });
    expect(Object.keys(mTrades.body.items[0]).sort()).toEqual([
      'amount', 'currencyPairCode', 'fee', 'feeAsset', 'id', 'isLong', 'orderId', 'orderSide', 'price', 'realizedPnl',
      'timestamp', 'tradeType',
    ]);
    const mHist = await b.pub(`/api/copy-master/${masterId}/positions-history?sortBy=pnl`);
    expect(mHist.body.items.map((p: { id: number }) => p.id)).toEqual([mOrder]);
    expect((await b.pub(`/api/copy-master/${masterId}/positions-history?pageSize=501`)).status).toBe(400);
    expect((await b.pub(`/api/copy-master/${masterId}/positions-history?sortBy=size`)).status).toBe(400);
    const analytics = (await b.pub(`/api/copy-master/${masterId}/analytics`)).body;
    const today = new Date().toISOString().slice(0, 10);
    expect(analytics).toMatchObject({ totalTrades: 2, tradingDays: 1 });
    expect(Object.keys(analytics.dailyPnl)).toEqual([today]);
    expect(analytics.dailyPnl[today]).toBeCloseTo(analytics.totalPnl, 8);
    expect(analytics.currencyAnalytics.BTC_USDT).toMatchObject({ trades: 2 });
    expect(analytics.totalPnl).toBeLessThan(0); // sold at the bid 99, bought back at the ask 101, fees on top
  });

  it('finishMasterCopy: closeOrders true closes the mirrored position and returns the money; false leaves it', async () => {
    const sam = await b.slave('sam');
    const sue = await b.slave('sue');
    await b.subscribe('sam', masterId, sam, 1_000);
    await b.subscribe('sue', masterId, sue, 1_000);
    const mOrder = await b.order('max', masterId, true, null, 1);
    await b.pump();
    const [samF] = await followerOrders('sam');
    const [sueF] = await followerOrders('sue');
    const finish = (user: string, slaveId: number, closeOrders: boolean) =>
      b.post(user, '/api/copy-slave/finishMasterCopy', { copyMasterFuturesAccountId: masterId, copySlaveFuturesAccountId: slaveId, closeOrders });

    const a = await finish('sam', sam, true);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ isActive: false, reason: 'SLAVE_FINISHED', masterFuturesAccountId: masterId, copySlaveFuturesAccountId: sam });
    expect((await b.record('sam', samF.id)).futuresOrderStatus).toBe(20);
    const samAcct = await b.account('sam', sam);
    expect(samAcct.available).toBeCloseTo(5_000 + a.body.totalProfit, 8);
    expect(a.body.settledEquity).toBeCloseTo(1_000 + a.body.totalProfit, 8);

    const c = await finish('sue', sue, false);
    expect(c.status).toBe(200);
    expect((await b.record('sue', sueF.id)).futuresOrderStatus).toBe(50);
    expect((await finish('sue', sue, false)).status).toBe(409);
    expect((await finish('sue', sam, false)).status).toBe(404);

    expect((await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true })).status).toBe(200);
    await b.pump();
    expect((await b.record('sue', sueF.id)).futuresOrderStatus).toBe(50);

    // once sue closes the position herself, its money leaves the finished subscription's account
    const subAccount = async () => (await b.get('sue', '/api/futures/accounts')).body.find((x: { name: string }) => x.name.startsWith('copy #'));
    expect((await subAccount()).usedMargin).toBeGreaterThan(0);
    const slaveBefore = (await b.account('sue', sue)).available;
    expect((await b.put('sue', `${TRADE}/close`, { orderId: sueF.id, isMarket: true })).status).toBe(200);
    const left = (await subAccount()).available;
    expect(left).toBeGreaterThan(0);
    await b.pump();
    expect(await subAccount()).toMatchObject({ available: 0, usedMargin: 0 });
    expect((await b.account('sue', sue)).available).toBeCloseTo(slaveBefore + left, 8);
  });

  it('DELETE master closes its positions and the followers\', finishes every subscription MASTER_CLOSED, returns equity', async () => {
    const sam = await b.slave('sam');
    await b.subscribe('sam', masterId, sam, 1_000);
    const mOrder = await b.order('max', masterId, true, null, 1);
    await b.pump();
    const [f] = await followerOrders('sam');
    const r = await b.del('max', `/api/copy-master/${masterId}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'Closed', subscribersCount: 0, equity: 0, balance: 0 });
    expect(r.body.closedAt).not.toBeNull();
    expect((await b.record('max', mOrder)).futuresOrderStatus).toBe(20);
    expect((await b.record('sam', f.id)).futuresOrderStatus).toBe(20);
    expect(await b.walletUsdt('max')).toBeCloseTo(10_000 + r.body.totalPnl, 8);
    const hist = await b.get('sam', '/api/copy-slave/following?onlyHistory=true');
    expect(hist.body.items).toHaveLength(1);
    expect(hist.body.items[0]).toMatchObject({ reason: 'MASTER_CLOSED', isActive: false });
    expect((await b.get('sam', '/api/copy-slave/following')).body.totalCount).toBe(0);
    expect((await b.del('max', `/api/copy-master/${masterId}`)).status).toBe(409);
    expect((await b.pub(`/api/copy-master/${masterId}/analytics`)).status).toBe(200);
    expect((await b.pub('/api/copy-master/public-masters')).body.totalCount).toBe(0);
    expect((await b.start('sam', masterId, sam, 10)).status).toBe(409);
  });
});
