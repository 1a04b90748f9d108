import BigNumber from 'bignumber.js';
import { copyBed, type CopyBed } from './helpers';

let b: CopyBed;
beforeEach(async () => {
  b = await copyBed();
  await b.liquidity(100);
});
afterEach(async () => b.ctx.cleanup());

const DAY = 24 * 3600 * 1000;

async function subscription(id: number) {
  return (await b.ctx.copy.slaves.subscriptionsTo('sam', (await b.get('sam', '/api/copy-slave')).body[0].id)).find(
    (s) => s.id === String(id),
  )!;
}

describe('settlement: management fee and profit share', () => {
  it('accrues commissionRate % a year of the margin, paid to the master owner\'s wallet, once per period', async () => {
    const m = await b.master('max', { commissionRate: 36.5, slaveIncomePercentage: 0 });
    const sam = await b.slave('sam', 2_000);
    const sub = await subscription((await b.subscribe('sam', m, sam, 1_000)).id);
    const wallet = await b.walletUsdt('max');
    const at = Number(sub.opened) + DAY;
    expect(await b.ctx.copy.settlement.settle(sub, at)).toEqual({ fee: String(1_000 * 0.365 / 365 * 1e8), share: '0' });
    expect(await b.ctx.copy.settlement.settle(sub, at)).toEqual({ fee: '0', share: '0' });
    expect(await b.walletUsdt('max')).toBe(wallet + 1);
    expect((await b.get('sam', `/api/copy-slave/${sam}/${m}/analytics`)).body).toMatchObject({ totalCommissions: 1, totalSlaveProfit: -1 });
    expect((await b.pub(`/api/copy-master/${m}/analytics`)).body).toMatchObject({ totalCommissions: 1, totalProfitShared: 0 });
    expect(await b.ctx.copy.settlement.settleAll(at + DAY)).toBe(1);
    expect(await b.walletUsdt('max')).toBe(wallet + 2);
  });

  it('shares slaveIncomePercentage % of the realized profit above the high-water mark, on settlement and on finish', async () => {
    const m = await b.master('max', { commissionRate: 0, slaveIncomePercentage: 20 });
    const sam = await b.slave('sam', 2_000);
    const sub = await subscription((await b.subscribe('sam', m, sam, 1_000)).id);
    const mOrder = await b.order('max', m, true, null, 10);
    await b.pump();
    const ann = await b.fundedAccount('ann', 1_000_000, 10);
    await b.order('ann', ann, true, 130, 100); // the bid rises to 130
    const wallet = await b.walletUsdt('max');
    expect((await b.ctx.copy.settlement.settle(sub)).share).toBe('0'); // nothing realized yet
    expect((await b.put('max', '/api/futures/trade/close', { orderId: mOrder, isMarket: true })).status).toBe(200);
    await b.pump();
    const before = (await b.get('sam', `/api/copy-slave/${sam}/${m}/analytics`)).body;
    expect(before.totalSlaveProfit).toBeGreaterThan(0);
    const expected = new BigNumber(before.totalSlaveProfit).times(0.2).decimalPlaces(8, BigNumber.ROUND_FLOOR).toNumber();
    await b.ctx.copy.settlement.settle(sub);
    expect(await b.walletUsdt('max')).toBeCloseTo(wallet + expected, 8);
    const after = (await b.get('sam', `/api/copy-slave/${sam}/${m}/analytics`)).body;
    expect(after.copyMasterProfit).toBeCloseTo(expected, 8);
    expect((await b.ctx.copy.settlement.settle(sub)).share).toBe('0');
    expect((await b.pub(`/api/copy-master/${m}/analytics`)).body.totalProfitShared).toBeCloseTo(expected, 8);

    // finishing settles once more: nothing new was realized, nothing more is shared
    const fin = await b.post('sam', '/api/copy-slave/finishMasterCopy', { copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: sam, closeOrders: false });
    expect(fin.status).toBe(200);
    expect(fin.body.commission).toBeCloseTo(expected, 8);
    expect(await b.walletUsdt('max')).toBeCloseTo(wallet + expected, 8);
  });
});
