import request from 'supertest';
import { bearer } from '../../support/harness';
import { admin, futuresBed } from './helpers';

/**
 * Liquidation at the bankruptcy price, the insurance fund and auto-deleveraging (issue 10, findings
 * 3 and 5). BTC_USDT: 0.1 price ticks, 0.0001 lots, contract value 1, USDT 8 decimals: one tick of one
 * lot is 1000 minor units; maintenance 0.5 %, maker 0.02 %, taker 0.05 %. The mark is given to the
 * engine directly (where it comes from is the price service's business).
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
const PAIR = 'BTC_USDT';
const NS = 1000n;
const MMR_PPM = 5000n;

beforeEach(async () => { b = await futuresBed(); });
afterEach(async () => b.ctx.cleanup());

const fund = async () => BigInt((await b.ctx.redis.hget(b.ctx.keys.insuranceFund(), 'USDT')) ?? '0');
const liquidate = (markTicks: number) => b.ctx.futures.engine.liquidate(PAIR, String(markTicks), Date.now());
const position = async (user: string, id: number) => (await b.get(user, '/api/futures/trade/positions')).body
  .find((p: { id: number }) => p.id === id);

/** The reference formula (the isolated-margin formulas of docs/futures.md) in exact integers, from the current margin. */
function expectedLiqTicks(isLong: boolean, costTicksLots: bigint, lots: bigint, marginMinor: bigint): bigint {
  if (isLong) {
    const num = (costTicksLots * NS - marginMinor) * 1_000_000n;
    const den = lots * NS * (1_000_000n - MMR_PPM);
    return num <= 0n ? 0n : (num + den - 1n) / den;
  }
  return ((costTicksLots * NS + marginMinor) * 1_000_000n) / (lots * NS * (1_000_000n + MMR_PPM));
}

describe('liquidation never fills beyond the bankruptcy price (finding 3)', () => {
  it('thin book: the IOC takes the bids down to bankruptcy, the fund what it can pay, ADL the rest, exact amounts', async () => {
    const alice = await b.fundedAccount('alice', 1000);
    const bob = await b.fundedAccount('bob', 1000);
    const carol = await b.fundedAccount('carol', 1000);
    const dan = await b.fundedAccount('dan', 1000);
    const total = await b.usdtTotal();
    const long = await b.order('alice', alice, true, 100, 1); // margin 10 at 10x
    const short = await b.order('bob', bob, false, null, 1);
    // liquidation price (100 - 10) / 0.995 = 90.45.. up to 90.5; bankruptcy 100 - 10 = 90
    expect((await b.record('alice', long)).liquidationPrice).toBe(90.5);
    await b.order('carol', carol, true, 90.2, 0.4); // above bankruptcy
    const danBid = await b.order('dan', dan, true, 85, 0.5); // beyond it: a market order would have sold here
    const bobBefore = await b.account('bob', bob);
    expect(await fund()).toBe(0n);

    expect(await liquidate(891)).toEqual([String(long)]); // mark 89.1, below bankruptcy

    const rec = await b.record('alice', long);
    // 0.4 at 90.2 (the book), 0.6 at 90 (fund and ADL): 0.4 x -9.8 + 0.6 x -10
    expect(rec).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0, currentMargin: 0, realizedPnl: -9.92 });
    const deals = (await b.get('alice', '/api/futures/deals/user')).body.items as { price: number; amount: number; tradeType: number }[];
    expect(deals.filter((d) => d.tradeType === 3).map((d) => [d.price, d.amount])).toEqual([[90.2, 0.4]]);
    // dan's bid beyond bankruptcy is untouched
    expect(await b.record('dan', danBid)).toMatchObject({ futuresOrderStatus: 10, filled: 0 });
    // the book fill left 0.4 x (10 - 9.8) = 0.08 of margin: to the fund; the fund takes over what that pays for
    // at mark: (90 - 89.1) per contract, 0.08 / 0.9 = 0.0888 contracts; ADL closes the other 0.5112 of bob at 90
    const bobPos = await position('bob', short);
    expect(bobPos.amountInPosition).toBeCloseTo(1 - 0.5112, 10);
    const bobAfter = await b.account('bob', bob);
    // bob gets the released margin 5.112 and the pnl 0.5112 x 10 = 5.112, no fee
    expect(bobAfter.available - bobBefore.available).toBeCloseTo(10.224, 8);
    // fund: +0.08, -0.0888 x 0.9 = -0.07992; what is left is 0.00008
    expect(await fund()).toBe(8000n);
    // operators read it
    const read = await request(b.app).get('/api/admin/insurance-fund').set('Authorization', admin);
    // with what it took over at the mark (it holds them: 89.1 is within its bankruptcy price, no bid within reach)
    expect([read.status, read.body]).toEqual([200, [{ currencyCode: 'USDT', balance: 0.00008,
      positions: [{ currencyPairCode: PAIR, isLong: true, amount: 0.0888, entryPrice: 89.1 }] }]]);
    expect((await request(b.app).get('/api/admin/insurance-fund').set('Authorization', bearer('alice'))).status).toBe(403);
    expect(await b.usdtTotal()).toBe(total);
  });

  it('a fund that can pay takes the whole rest: nobody is deleveraged and the fund stays >= 0', async () => {
    const alice = await b.fundedAccount('alice', 1000);
    const bob = await b.fundedAccount('bob', 1000);
    const long = await b.order('alice', alice, true, 100, 1);
    const short = await b.order('bob', bob, false, null, 1);
    await b.seedInsurance(5_00000000); // 5 USDT seeded by an operator
    expect(await liquidate(880)).toEqual([String(long)]); // mark 88: 2 per contract below bankruptcy
    expect((await b.record('alice', long)).futuresOrderStatus).toBe(20);
    expect((await position('bob', short)).amountInPosition).toBe(1);
    expect(await fund()).toBe(3_00000000n);
  });

  it('ADL takes the highest ranked first (pnl % x effective leverage) after the book and the fund', async () => {
    const alice = await b.fundedAccount('alice', 1000);
    const bob = await b.fundedAccount('bob', 1000);
    const carol = await b.fundedAccount('carol', 1000, 20);
    const dan = await b.fundedAccount('dan', 1000, 1); // at 1x the short his ask opens is safe at a mark of 120
    const total = await b.usdtTotal();
    const short = await b.order('bob', bob, false, 100, 1); // margin 10, bankruptcy 110
    const aliceLong = await b.order('alice', alice, true, null, 0.6); // margin 6 at 10x
    const carolLong = await b.order('carol', carol, true, null, 0.4); // margin 2 at 20x
    await b.order('dan', dan, false, 105, 0.5); // the book: 0.5 below bankruptcy
    const carolBefore = await b.account('carol', carol);
    // the ADL rank each position shows (extension field adlQuantile 0-4) at a mark of 120
    expect((await b.setIndex(PAIR, 120)).status).toBe(200);
    const lights = async () => [(await position('carol', carolLong)).adlQuantile, (await position('alice', aliceLong)).adlQuantile,
      (await position('bob', short)).adlQuantile];
    expect(await lights()).toEqual([4, 2, 0]); // carol first of two longs, alice the lower half, bob at a loss
    expect(await liquidate(1200)).toEqual([String(short)]); // mark 120
    // the IOC buys 0.5 at 105: 5 - 2.5 = 2.5 of margin to the fund; the fund pays (120 - 110) for 0.25;
    // ADL at 110: carol scores (8 / 2) x (48 / 10) = 19.2, alice (12 / 6) x (72 / 18) = 8: carol gives 0.25
    expect(await b.record('bob', short)).toMatchObject({ futuresOrderStatus: 20, currentMargin: 0, realizedPnl: -7.5 });
    expect((await position('carol', carolLong)).amountInPosition).toBeCloseTo(0.15, 10);
    expect((await position('alice', aliceLong)).amountInPosition).toBe(0.6);
    // carol: released margin 1.25 and pnl 0.25 x 10, no fee
    expect((await b.account('carol', carol)).available - carolBefore.available).toBeCloseTo(3.75, 8);
    expect(await fund()).toBe(0n);
    expect(await b.usdtTotal()).toBe(total);
  });
});

describe('exact liquidation prices from the current margin (finding 5)', () => {
  it('matches the reference formula in integers at odd leverage and large positions', async () => {
    const cases: [number, number, number][] = [[3, 18756.9, 94.8079], [7, 50108.8, 57.1489], [33, 29007.8, 1.2013], [99, 29896.1, 78.3598]];
    for (const [lev, price, amount] of cases) {
      const maker = await b.fundedAccount(`m${lev}`, 10_000_000, lev);
      const taker = await b.fundedAccount(`t${lev}`, 10_000_000, lev);
      const long = await b.order(`m${lev}`, maker, true, price, amount);
      const short = await b.order(`t${lev}`, taker, false, null, amount);
      for (const [user, id, isLong] of [[`m${lev}`, long, true], [`t${lev}`, short, false]] as const) {
        const p = await position(user, id);
        const cost = BigInt(Math.round(price * 10)) * BigInt(Math.round(amount * 1e4));
        const margin = BigInt(Math.round(p.currentMargin * 1e8));
        const want = expectedLiqTicks(isLong, cost, BigInt(Math.round(amount * 1e4)), margin);
        expect([lev, isLong, Math.round(p.liquidationPrice * 10)]).toEqual([lev, isLong, Number(want)]);
      }
    }
  });
});
