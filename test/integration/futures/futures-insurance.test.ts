import request from 'supertest';
import { admin, futuresBed } from './helpers';

/**
 * The last resort of auto-deleveraging and the insurance fund's own positions (issue 10; docs/futures.md
 * "Liquidation, insurance fund and ADL"). BTC_USDT: 0.1 price ticks, 0.0001 lots, contract value 1,
 * USDT 8 decimals (one tick of one lot is 1000 minor units); maintenance 0.5 %, maker 0.02 %, taker
 * 0.05 %. Marks are given to the engine directly.
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
const PAIR = 'BTC_USDT';
const USDT = 100_000_000n;

beforeEach(async () => { b = await futuresBed(); });
afterEach(async () => b.ctx.cleanup());

const fund = async () => BigInt((await b.ctx.redis.hget(b.ctx.keys.insuranceFund(), 'USDT')) ?? '0');
const pool = async () => BigInt((await b.ctx.redis.hget(b.ctx.keys.futuresPnlPool(), 'USDT')) ?? '0');
const liquidate = (markTicks: number) => b.ctx.futures.engine.liquidate(PAIR, String(markTicks), Date.now());
const fundRead = async () => {
  const r = await request(b.app).get('/api/admin/insurance-fund').set('Authorization', admin);
  expect(r.status).toBe(200);
  return r.body;
};

it('last resort: with no counterparty solvent at the bankruptcy price, ADL closes one anyway and its deficit goes to the fund, then the pool', async () => {
  const alice = await b.fundedAccount('alice', 1000);
  const bob = await b.fundedAccount('bob', 1000);
  const carol = await b.fundedAccount('carol', 1000);
  const total = await b.usdtTotal();
  const long = await b.order('alice', alice, true, 100, 1); // margin 10, bankruptcy 90
  const bobShort = await b.order('bob', bob, false, null, 1);
  await b.order('carol', carol, false, 80, 1); // margin 8, bankruptcy 88
  expect((await b.put('bob', '/api/futures/trade/close', { orderId: bobShort, isMarket: true })).status).toBe(200);
  const carolShort = (await b.record('carol', (await b.get('carol', '/api/futures/trade/positions')).body[0].id));
  const carolBefore = await b.account('carol', carol);
  const poolBefore = await pool();

  // mark 80: alice is 10 past her margin; no bid within 90, no fund, and carol would lose 10 on a margin of 8 at 90
  expect(await liquidate(800)).toEqual([String(long)]);
  expect(await b.record('alice', long)).toMatchObject({ futuresOrderStatus: 20, currentMargin: 0, realizedPnl: -10 });
  expect(await b.record('carol', carolShort.id)).toMatchObject({ futuresOrderStatus: 20, currentMargin: 0, realizedPnl: -10 });
  // carol's payout 8 - 10 = -2 ends at zero: her free balance does not move; the empty fund pays nothing
  expect((await b.account('carol', carol)).available).toBe(carolBefore.available);
  expect(await fund()).toBe(0n);
  // the pool: +10 from each realized loss, -2 of carol's deficit it carries (money conserved to the unit)
  expect(await pool() - poolBefore).toBe(18n * USDT);
  expect(await b.usdtTotal()).toBe(total);
  const open = (await b.get('alice', '/api/futures/trade/positions')).body.filter((p: { futuresOrderStatus: number }) => p.futuresOrderStatus === 50);
  expect(open).toEqual([]);
});

it('a fund with a little money takes over what it can pay for at the mark, the last resort the rest', async () => {
  const alice = await b.fundedAccount('alice', 1000);
  const bob = await b.fundedAccount('bob', 1000);
  const carol = await b.fundedAccount('carol', 1000);
  const long = await b.order('alice', alice, true, 100, 1);
  const bobShort = await b.order('bob', bob, false, null, 1);
  await b.order('carol', carol, false, 80, 1);
  expect((await b.put('bob', '/api/futures/trade/close', { orderId: bobShort, isMarket: true })).status).toBe(200);
  // 0.5 USDT: the takeover would cost (90 - 80) = 10 a contract, so the fund takes 0.05 and keeps 0
  await b.seedInsurance(50_000_000);
  const total = await b.usdtTotal();
  expect(await liquidate(800)).toEqual([String(long)]);
  expect(await fund()).toBe(0n);
  expect((await fundRead())[0].positions).toEqual([{ currencyPairCode: PAIR, isLong: true, amount: 0.05, entryPrice: 80 }]);
  expect(await b.usdtTotal()).toBe(total);
});

describe("the fund's taken-over positions", () => {
  /** alice long 1 @ 100 at 10x against bob's short; a fund of 5 takes her whole contract at mark 88 for 2. */
  async function fundHoldsLong() {
    const alice = await b.fundedAccount('alice', 1000);
    const bob = await b.fundedAccount('bob', 1000);
    const long = await b.order('alice', alice, true, 100, 1);
    const short = await b.order('bob', bob, false, null, 1);
    await b.seedInsurance(5_00000000);
    expect(await liquidate(880)).toEqual([String(long)]);
    expect(await fund()).toBe(3n * USDT);
    expect(await fundRead()).toEqual([
      { currencyCode: 'USDT', balance: 3, positions: [{ currencyPairCode: PAIR, isLong: true, amount: 1, entryPrice: 88 }] },
    ]);
    return { bob, short, total: await b.usdtTotal() };
  }

  it('unwind into the book: within the maintenance band of the mark and the fund\'s bankruptcy price, never beyond', async () => {
    const { total } = await fundHoldsLong();
    const dan = await b.fundedAccount('dan', 1000);
    const near = await b.order('dan', dan, true, 87.8, 0.6); // above 88 x 0.995 = 87.56
    const far = await b.order('dan', dan, true, 87, 0.5); // below it
    expect(await liquidate(880)).toEqual([]); // nobody to liquidate: the sweep unwinds the fund
    expect(await b.record('dan', near)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.6 });
    expect(await b.record('dan', far)).toMatchObject({ futuresOrderStatus: 10, filled: 0 });
    // the fund sold 0.6 at 87.8 of a long held at 88: -0.12, no fee
    expect(await fund()).toBe(3n * USDT - 12_000_000n);
    expect((await fundRead())[0].positions).toEqual([{ currencyPairCode: PAIR, isLong: true, amount: 0.4, entryPrice: 88 }]);
    // at a mark of 80 the band is lower than the fund's bankruptcy price ((35.2 - 2.88) / 0.4 = 80.8): 87 is within it
    expect(await liquidate(800)).toEqual([]);
    expect(await b.record('dan', far)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.4 });
    expect(await fund()).toBe(3n * USDT - 12_000_000n - 40_000_000n);
    expect((await fundRead())[0].positions).toEqual([]);
    expect(await b.usdtTotal() - total).toBe(1000n * USDT); // dan's deposit
  });

  it('a mark past the fund\'s bankruptcy price deleverages its position at that price; the fund ends at zero, not below', async () => {
    const { bob, short, total } = await fundHoldsLong();
    const before = await b.account('bob', bob);
    // the fund's long of 1 at 88 with 3: bankruptcy 85; the mark 84 is past it and there is no book
    expect(await liquidate(840)).toEqual([]);
    expect(await b.record('bob', short)).toMatchObject({ futuresOrderStatus: 20, realizedPnl: 15 });
    // bob: margin 10 back and 15 of pnl at 85, no fee
    expect((await b.account('bob', bob)).available - before.available).toBeCloseTo(25, 8);
    expect(await fund()).toBe(0n);
    expect((await fundRead())[0].positions).toEqual([]);
    expect(await b.usdtTotal()).toBe(total);
  });

  it('closes against the next liquidation on the other side at its bankruptcy price, before any takeover or ADL', async () => {
    const { short, total } = await fundHoldsLong();
    // bob's short of 1 at 100 (bankruptcy 110) at a mark of 111: the fund's long of 1 at 88 takes it at 110
    expect(await liquidate(1110)).toEqual([String(short)]);
    expect(await b.record('bob', short)).toMatchObject({ futuresOrderStatus: 20, currentMargin: 0, realizedPnl: -10 });
    expect(await fund()).toBe(3n * USDT + 22n * USDT);
    expect((await fundRead())[0].positions).toEqual([]);
    expect(await b.usdtTotal()).toBe(total);
  });
});
