import request from 'supertest';
import { bearer } from '../../support/harness';
import { ImpactBook } from '../../../src/futures/prices/impact-book';
import { admin, futuresBed } from './helpers';

/**
 * Index (median of fresh sources), mark (median of three) and what a wash trade can and cannot move
 * (issue 10, finding 2). Prices of BTC_USDT futures have one decimal: 100.0 is 1000 ticks.
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
beforeEach(async () => {
  b = await futuresBed();
});
afterEach(async () => b.ctx.cleanup());

const PAIR = 'BTC_USDT';
const pair = async () => (await b.ctx.markets.store.getPair('futures', PAIR))!;
const push = (price: number, source?: string) =>
  request(b.app).post('/api/admin/index-price').set('Authorization', admin).send({ currencyPairCode: PAIR, price, source });

async function spotQuote(user: string, side: 'buy' | 'sell', price: number, amount: number) {
  const cur = side === 'buy' ? 'USDT' : 'BTC';
  await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: user, currencyCode: cur, amount: 100_000 });
  const r = await request(b.app).post('/api/orders').set('Authorization', bearer(user))
    .send({ currencyPairCode: PAIR, side, type: 'limit', price, amount });
  expect([r.status, r.body.error]).toEqual([200, undefined]);
}

describe('index price', () => {
  it('is the median of the fresh outside sources and the spot impact mid held within 0.5 % of them; when no outside source is fresh the last index stands', async () => {
    const p = await pair();
    expect((await push(100)).status).toBe(200); // source admin
    expect((await push(104, 'oracle-a')).status).toBe(200);
    expect((await push(102, 'oracle-b')).status).toBe(200);
    const now = Date.now();
    expect(await b.ctx.futures.prices.computeIndex(p, now)).toBe(1020n); // median(100, 104, 102)
    // spot quotes too thin to fill the impact notional (20,000 USDT) on either side count for nothing
    await spotQuote('s1', 'buy', 97, 1);
    await spotQuote('s2', 'sell', 99, 1);
    expect(await b.ctx.futures.prices.computeIndex(p, now)).toBe(1020n);
    // with depth (300 a side fills 20,000 USDT at one level) the impact mid is 98, held at 102 - 0.5 % = 101.5:
    // median(100, 101.5, 102, 104) = (101.5 + 102) / 2, rounded down
    await spotQuote('s1', 'buy', 97, 300);
    await spotQuote('s2', 'sell', 99, 300);
    expect(await b.ctx.futures.prices.computeIndex(p, now)).toBe(1017n);
    // a source older than INDEX_STALE_SECONDS (30) drops out: outside median(100, 102) = 101, spot held at 100.5
    await b.ctx.futures.prices.recordIndexSource(p, 'oracle-a', '2000', now - 31_000);
    expect(await b.ctx.futures.prices.computeIndex(p, now)).toBe(1005n); // median(100, 100.5, 102)
    // a later push of the same source is fresh again
    await b.ctx.futures.prices.recordIndexSource(p, 'oracle-a', '1050', now);
    expect(await b.ctx.futures.prices.computeIndex(p, now)).toBe(1017n); // median(100, 101.5, 102, 105)
    // stored with the mark
    expect(await b.ctx.futures.prices.refreshMark(p, now)).not.toBeNull();
    expect(await b.ctx.futures.prices.indexTicks(p)).toBe('1017');
    // a minute on no outside source is fresh: the spot market alone sets nothing, the last index stands
    expect(await b.ctx.futures.prices.computeIndex(p, now + 60_000)).toBe(1017n);
  });

  it('refuses a bad source name', async () => {
    const r = await push(100, 'bad source!');
    expect([r.status, r.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('mark price', () => {
  it('is the median of index x (1 + last rate x time left / interval), index + the 30 s impact-mid basis average, and the last trade', async () => {
    const p = await pair();
    const a = await b.fundedAccount('alice');
    const bob = await b.fundedAccount('bob');
    const carol = await b.fundedAccount('carol');
    await b.order('alice', a, true, 10050, 0.01);
    await b.order('bob', bob, false, null, 0.01); // last trade 10050.0
    const T = 28_800_000;
    const start = Math.floor(Date.now() / T) * T + T;
    // a round settles with no premium samples: the rate is the interest, 0.01 %
    await b.ctx.futures.prices.recordIndexSource(p, 'admin', '100000', start);
    expect((await b.ctx.futures.risk.settleFundingRound(PAIR, start))?.ratePpm).toBe(100);
    // 2.5 a side fills the impact notional (20,000 USDT) at one level: impact mid 10020.0, basis +20.0
    await b.order('carol', carol, true, 10010, 2.5);
    await b.order('carol', carol, false, 10030, 2.5);
    const now = start + T / 2; // half the interval to the next funding
    let mark: string | null = null;
    for (let s = 0; s < 30; s++) {
      await b.ctx.futures.prices.recordIndexSource(p, 'admin', '100000', now + s * 1000);
      mark = await b.ctx.futures.prices.refreshMark(p, now + s * 1000);
    }
    // P1 = 10000 x (1 + 0.0001 x 1/2) = 10000.5 (minus 29 s of the half interval: still 10000.5 at one decimal)
    // P2 = 10000 + 20 = 10020; last = 10050, held at 10000 + 0.25 % = 10025: the mark is 10020.0
    expect(mark).toBe('100200');
    expect(await b.ctx.futures.prices.markTicks(p)).toBe('100200');
    const samples = await b.ctx.redis.lrange(b.ctx.keys.basisSamples(PAIR), 0, -1);
    expect(samples).toEqual(Array(30).fill('200'));
    // a second refresh in the same second adds no sample
    await b.ctx.futures.prices.refreshMark(p, now + 29_500);
    expect(await b.ctx.redis.llen(b.ctx.keys.basisSamples(PAIR))).toBe(30);
  });
});

describe('impact prices', () => {
  it('walk past the first 50 levels when the impact notional needs them, and are null where the side cannot fill it', async () => {
    const p = await pair();
    const dan = await b.fundedAccount('dan', 1_000_000);
    // asks of 3 BTC at 101.0, 101.1, ... 107.9: about 310 USDT a level, 20,000 USDT fill only in the 64th
    const levels: [number, number][] = Array.from({ length: 70 }, (_, i) => [(1010 + i) / 10, 3]);
    for (const [price, amount] of levels) await b.order('dan', dan, false, price, amount);
    let left = 20_000;
    let qty = 0;
    for (const [price, amount] of levels) {
      const take = Math.min(amount, left / price);
      qty += take;
      left -= take * price;
      if (left <= 1e-9) break;
    }
    const impact = new ImpactBook(b.ctx.marketData.books);
    const got = await impact.prices('futures', p, ImpactBook.notional(p));
    expect(got.bid).toBeNull(); // no bids at all
    expect(got.ask).toBeCloseTo(20_000 / qty, 9);
    expect(await impact.midTicks('futures', p, ImpactBook.notional(p), p.digitsPrice)).toBeNull();
  });
});

describe('manipulation (issue 10, finding 2)', () => {
  it('a smallest-size self-trade 20 % below the index moves the mark no further than the median allows and liquidates nobody', async () => {
    const p = await pair();
    const alice = await b.fundedAccount('alice', 1000);
    const bob = await b.fundedAccount('bob', 1000);
    const carol = await b.fundedAccount('carol');
    const eve = await b.fundedAccount('eve', 100_000, 1); // unlevered: its own legs survive a mark of 100
    expect((await push(100)).status).toBe(200);
    const long = await b.order('alice', alice, true, 100, 1); // 10x: liquidation near 90.5
    await b.order('bob', bob, false, null, 1);
    await b.order('carol', carol, false, 100.1, 5); // asks only: nothing between the attacker and 80
    // the same attack on the spot market of the pair: a one-lot self-trade at 80 (spot asks only)
    await spotQuote('s2', 'sell', 100.1, 1);
    await spotQuote('eve', 'buy', 80, 0.013); // the smallest order the spot pair takes at 80 (1 USDT)
    await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: 'eve', currencyCode: 'BTC', amount: 1 });
    const sell = await request(b.app).post('/api/orders').set('Authorization', bearer('eve'))
      .send({ currencyPairCode: PAIR, side: 'sell', type: 'limit', price: 80, amount: 0.013 });
    expect([sell.status, sell.body.error]).toEqual([200, undefined]);
    // and on the futures market: the smallest order the pair takes (5 USDT), bought and sold by the attacker at 80
    await b.order('eve', eve, true, 80, 0.0625);
    await b.order('eve', eve, false, 80, 0.0625);
    expect(await b.ctx.redis.get(b.ctx.keys.lastPrice('futures', PAIR))).toBe('800');
    expect(await b.ctx.futures.risk.sweepLiquidations(PAIR)).toEqual([]);
    expect((await b.record('alice', long)).futuresOrderStatus).toBe(50);
    const mark = Number(await b.ctx.futures.prices.markTicks(p));
    // median(P1 ≈ index, P2 = index (no two-sided book, no basis samples), 80): the index, 100.0
    expect(mark).toBe(1000);
    // a wash-traded last price moves no premium sample: the rate stays the interest, 0.01 %
    const now = Date.now();
    for (let s = 0; s < 5; s++) expect(await b.ctx.futures.premium.sample(p, now + s * 5000)).toBe(true);
    expect(await b.ctx.futures.prices.fundingRatePpm(p)).toBe(100);
    const settled = await b.ctx.futures.risk.settleFundingRound(PAIR, now + 28_800_000);
    expect(settled?.ratePpm).toBe(100);
    expect((await b.record('alice', long)).futuresOrderStatus).toBe(50);
  });

  it('premium samples come from resting depth over the impact notional, not from the last trade', async () => {
    const p = await pair();
    const carol = await b.fundedAccount('carol');
    const dan = await b.fundedAccount('dan');
    expect((await push(100)).status).toBe(200);
    // IMN = 200 x max leverage 100 = 20,000 USDT: bids of 100 @ 100.5 and 200 @ 100.2 fill it at
    // 20,000 / (100 + 9,950 / 100.2) = 100.3497...; asks at 100.6 fill it at 100.6
    await b.order('carol', carol, true, 100.5, 100);
    await b.order('carol', carol, true, 100.2, 200);
    await b.order('dan', dan, false, 100.6, 300);
    const bidImpact = 20_000 / (100 + (20_000 - 100.5 * 100) / 100.2);
    const want = Math.round(((bidImpact - 100) / 100) * 1e9);
    expect(await b.ctx.futures.premium.premiumPpb(p)).toBe(want);
    const now = Date.now();
    expect(await b.ctx.futures.premium.sample(p, now)).toBe(true);
    expect(await b.ctx.futures.premium.sample(p, now)).toBe(true); // same slot: no second sample
    expect(await b.ctx.redis.hget(b.ctx.keys.fundingState(PAIR), 'pn')).toBe('1');
    // P̄ = 0.3497 % is above interest + 0.05 %: rate = P̄ − 0.05 %, capped at 0.75 x MMR 0.5 % = 0.375 %
    const rate = Math.min(3750, Math.round(want / 1000 - 500));
    expect(await b.ctx.futures.prices.fundingRatePpm(p)).toBe(rate);
  });
});
