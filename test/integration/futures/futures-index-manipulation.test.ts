import request from 'supertest';
import { bearer } from '../../support/harness';
import { admin, futuresBed } from './helpers';

/**
 * Issue 24 finding 1: the own spot market is a weak index source and the mark's book-driven parts
 * are held near the index (docs/futures.md "Index, mark and funding"). The attack: resting spot
 * orders bid 79.9 / ask 80.1 nobody trades against, with the operator's price at 100; thin, deep
 * (enough to fill the impact notional), with the operator's price stale, and with one-lot futures
 * self-trades and resting futures quotes at the manipulated price. Each time index and mark stay
 * within 0.5 % of the outside median (100.0 = 1000 ticks), nobody is liquidated and money is
 * conserved. Positions at risk: alice long 1 @ 100 at 10x (liquidation 90.5), frank long 1 @ 100
 * at 50x (liquidation 98.5).
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
beforeEach(async () => {
  b = await futuresBed();
});
afterEach(async () => b.ctx.cleanup());

const PAIR = 'BTC_USDT';
const OUTSIDE = 1000n; // the operator's 100.0
const BAND = 5n; // 0.5 % of it
const pair = async () => (await b.ctx.markets.store.getPair('futures', PAIR))!;
const push = (at: number) => b.ctx.futures.prices.recordIndexSource(PAIR_REF, 'admin', String(OUTSIDE), at);
let PAIR_REF: Awaited<ReturnType<typeof pair>>;

async function deposit(user: string, currencyCode: string, amount: number) {
  const d = await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: user, currencyCode, amount });
  expect(d.status).toBe(200);
}

/** mallory's resting spot quotes: bid 79.9 and ask 80.1 of `amount` each, which nobody trades against. */
async function spotQuotes(amount: number) {
  await deposit('mallory', 'USDT', 100_000);
  await deposit('mallory', 'BTC', 1_000);
  for (const [side, price] of [['buy', 79.9], ['sell', 80.1]] as const) {
    const r = await request(b.app).post('/api/orders').set('Authorization', bearer('mallory'))
      .send({ currencyPairCode: PAIR, side, type: 'limit', price, amount });
    expect([r.status, r.body.status]).toEqual([200, 'open']);
  }
}

/** Positions at risk, and a book that holds them: bob is short against both. */
async function positions() {
  const alice = await b.fundedAccount('alice', 1000, 10);
  const frank = await b.fundedAccount('frank', 1000, 50);
  const bob = await b.fundedAccount('bob', 1000, 10);
  const longs = [await b.order('alice', alice, true, 100, 1)];
  await b.order('bob', bob, false, null, 1);
  longs.push(await b.order('frank', frank, true, 100, 1));
  await b.order('bob', bob, false, null, 1);
  return longs;
}

/** mallory's futures: resting quotes of `amount` at 79.9 / 80.1 and a one-lot self-trade at 80 (STP NONE). */
async function futuresManipulation(amount: number) {
  const acct = await b.fundedAccount('mallory-f', 100_000, 1);
  await b.order('mallory-f', acct, true, 79.9, amount);
  await b.order('mallory-f', acct, false, 80.1, amount);
  await b.order('mallory-f', acct, true, 80, 0.0625); // the smallest order the pair takes at 80 (5 USDT)
  await b.order('mallory-f', acct, false, 80, 0.0625);
  expect(await b.ctx.redis.get(b.ctx.keys.lastPrice('futures', PAIR))).toBe('800');
}

/** 30 s of the mark worker up to now (the operator pushing each second unless `stale`), then the sweeps. */
async function runMarkWorker(stale: boolean) {
  const now = Date.now();
  for (let s = 30; s > 0; s--) {
    if (!stale) await push(now - s * 1000);
    await b.ctx.futures.prices.refreshMark(PAIR_REF, now - s * 1000);
  }
  return b.ctx.futures.risk.sweepLiquidations(PAIR);
}

async function expectHeld(longs: number[], liquidated: string[]) {
  expect(liquidated).toEqual([]);
  for (const [user, id] of [['alice', longs[0]], ['frank', longs[1]]] as const) {
    expect([user, (await b.record(user, id)).futuresOrderStatus]).toEqual([user, 50]);
  }
  const index = BigInt((await b.ctx.futures.prices.indexTicks(PAIR_REF)) ?? '0');
  const mark = BigInt((await b.ctx.futures.prices.markTicks(PAIR_REF)) ?? '0');
  const off = (v: bigint) => (v > OUTSIDE ? v - OUTSIDE : OUTSIDE - v);
  expect({ index: off(index) <= BAND, mark: off(mark) <= BAND }).toEqual({ index: true, mark: true });
  return { index, mark };
}

beforeEach(async () => {
  PAIR_REF = await pair();
});

it('thin spot quotes bid 79.9 / ask 80.1 do not fill the impact notional: the index stays the operator\'s 100', async () => {
  const longs = await positions();
  await spotQuotes(0.1);
  const total = await b.usdtTotal(); // deposits = everything held (the helper checks it)
  const { index, mark } = await expectHeld(longs, await runMarkWorker(false));
  expect([index, mark]).toEqual([1000n, 1000n]);
  expect(await b.usdtTotal()).toBe(total);
});

it('deep spot quotes (300 a side) count through their impact mid 80, held at 99.5: index median(100, 99.5)', async () => {
  const longs = await positions();
  await spotQuotes(300);
  const total = await b.usdtTotal(); // deposits = everything held (the helper checks it)
  const { index, mark } = await expectHeld(longs, await runMarkWorker(false));
  expect([index, mark]).toEqual([997n, 997n]); // (1000 + 995) / 2 rounded down
  expect(await b.usdtTotal()).toBe(total);
});

it('with the operator\'s price stale the spot market alone sets nothing: the last index stands', async () => {
  const longs = await positions();
  const long = Date.now() - 120_000;
  await push(long); // the operator's last word, two minutes old
  await b.ctx.futures.prices.refreshMark(PAIR_REF, long);
  await spotQuotes(300);
  const total = await b.usdtTotal();
  const { index, mark } = await expectHeld(longs, await runMarkWorker(true));
  expect([index, mark]).toEqual([1000n, 1000n]);
  expect(await b.usdtTotal()).toBe(total);
});

it('deep spot quotes with thin futures quotes and a one-lot futures self-trade at 80: one mark input moved, held near the index', async () => {
  const longs = await positions();
  await spotQuotes(300);
  await futuresManipulation(0.1);
  const total = await b.usdtTotal(); // deposits = everything held (the helper checks it)
  const { index, mark } = await expectHeld(longs, await runMarkWorker(false));
  // P1 = index (no funding yet), P2 = index (the futures quotes cannot fill the impact notional: basis 0),
  // last trade 80 held at 99.7 - 0.25 % = 99.5: median(99.7, 99.7, 99.5)
  expect([index, mark]).toEqual([997n, 997n]);
  expect(await b.usdtTotal()).toBe(total);
});

it('deep quotes on both books and a self-trade at 80: basis and last trade both held 0.25 % below the index', async () => {
  const longs = await positions();
  await spotQuotes(300);
  await futuresManipulation(300);
  const total = await b.usdtTotal(); // deposits = everything held (the helper checks it)
  const { index, mark } = await expectHeld(longs, await runMarkWorker(false));
  // P2 = 99.7 + (80 - 99.7) held at 99.5, last 80 held at 99.5: median(99.7, 99.5, 99.5)
  expect([index, mark]).toEqual([997n, 995n]);
  expect(await b.usdtTotal()).toBe(total);
});
