import { Queue } from 'bullmq';
import { createRedis } from '../../../src/platform/redis/connection';
import { queueName } from '../../../src/platform/queues';
import { FUTURES_TRIGGERS_QUEUE } from '../../../src/futures/workers/futures-triggers.worker';
import { startFuturesWorkers } from '../../../src/futures/workers/futures-workers';
import { futuresBed } from './helpers';

type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
let alice: number;
let bob: number;
let carol: number;
let dan: number;

beforeEach(async () => {
  b = await futuresBed();
  alice = await b.fundedAccount('alice', 1000);
  bob = await b.fundedAccount('bob', 1000);
  carol = await b.fundedAccount('carol', 1000);
  dan = await b.fundedAccount('dan', 1000);
});
afterEach(async () => b.ctx.cleanup());

const TRADE = '/api/futures/trade';

/** alice long 1 @ 100 against bob's short, with the triggers given. */
async function aliceLong(extra: Record<string, unknown> = {}) {
  const id = await b.order('alice', alice, true, 100, 1, extra);
  await b.order('bob', bob, false, null, 1);
  return id;
}

describe('TP/SL triggers', () => {
  it('closes a long at market when the last price reaches its take profit', async () => {
    const total = await b.usdtTotal();
    const long = await aliceLong({ takeProfit: 110, stopLoss: 90 });
    await b.order('carol', carol, true, 112, 2); // the bid the TP closes into
    expect(await b.ctx.futures.risk.sweepTriggers('BTC_USDT')).toEqual([]); // last is still 100
    await b.order('dan', dan, false, null, 0.1); // trades at 112: last crosses the TP
    const closed = await b.ctx.futures.risk.sweepTriggers('BTC_USDT');
    expect(closed).toEqual([{ id: String(long), reason: 'tp' }]);
    const rec = await b.record('alice', long);
    expect(rec).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0, realizedPnl: 12 });
    expect(await b.account('alice', alice)).toMatchObject({ usedMargin: 0 });
    expect(await b.ctx.futures.risk.sweepTriggers('BTC_USDT')).toEqual([]);
    expect(await b.usdtTotal()).toBe(total);
  });

  it('closes a short at market when the last price reaches its stop loss', async () => {
    const short = await b.order('bob', bob, false, 100, 1, { stopLoss: 105, takeProfit: 80 });
    await b.order('alice', alice, true, null, 1);
    await b.order('carol', carol, false, 106, 2); // the ask the SL closes into
    await b.order('dan', dan, true, null, 0.1); // trades at 106
    expect(await b.ctx.futures.risk.sweepTriggers('BTC_USDT')).toEqual([{ id: String(short), reason: 'sl' }]);
    expect(await b.record('bob', short)).toMatchObject({ futuresOrderStatus: 20, realizedPnl: -6 });
  });

  it('a stop loss moved away no longer triggers; a TP set on an unfilled order starts with the position', async () => {
    const long = await b.order('alice', alice, true, 100, 1, { stopLoss: 95 });
    await b.put('alice', `${TRADE}/update-stop-loss`, { orderId: long, stopLoss: 80 });
    await b.order('bob', bob, false, null, 1);
    await b.order('carol', carol, true, 94, 1);
    await b.order('dan', dan, false, null, 0.1); // last 94: above the moved SL
    expect(await b.ctx.futures.risk.sweepTriggers('BTC_USDT')).toEqual([]);
    expect((await b.record('alice', long)).futuresOrderStatus).toBe(50);
  });
});

describe('liquidation', () => {
  it('liquidates a long when the mark crosses its liquidation price, never selling below bankruptcy', async () => {
    const total = await b.usdtTotal();
    const long = await aliceLong();
    expect((await b.record('alice', long)).liquidationPrice).toBe(90.5);
    await b.order('carol', carol, true, 89, 1); // below the bankruptcy price 90
    expect((await b.setIndex('BTC_USDT', 91)).status).toBe(200);
    expect(await b.ctx.futures.risk.sweepLiquidations('BTC_USDT')).toEqual([]);
    const before = await b.account('alice', alice);
    await b.setIndex('BTC_USDT', 90);
    expect(await b.ctx.futures.risk.sweepLiquidations('BTC_USDT')).toEqual([String(long)]);
    const rec = await b.record('alice', long);
    // the book's 89 is beyond bankruptcy: the fund takes the position over at 90 (mark 90: it costs nothing)
    expect(rec).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0, realizedPnl: -10, currentMargin: 0 });
    const after = await b.account('alice', alice);
    // the account loses the position's margin and nothing more
    expect(after.available).toBeCloseTo(before.available, 8);
    expect(after.usedMargin).toBe(0);
    expect(await b.ctx.redis.hget(b.ctx.keys.insuranceFund(), 'USDT')).toBeNull();
    expect(await b.usdtTotal()).toBe(total);
    const deals = await b.get('alice', '/api/futures/deals/user');
    expect(deals.body.items.filter((d: { tradeType: number }) => d.tradeType === 3)).toEqual([]);
  });

  it('sends what is left of the margin to the insurance fund when the close is above bankruptcy', async () => {
    const short = await b.order('bob', bob, false, 100, 1);
    await b.order('alice', alice, true, null, 1);
    await b.order('carol', carol, false, 109, 1);
    await b.setIndex('BTC_USDT', 110);
    expect(await b.ctx.futures.risk.sweepLiquidations('BTC_USDT')).toEqual([String(short)]);
    expect((await b.record('bob', short)).realizedPnl).toBe(-9);
    // margin 10 - loss 9; a liquidation pays no taker fee
    const insurance = Number(await b.ctx.redis.hget(b.ctx.keys.insuranceFund(), 'USDT')) / 1e8;
    expect(insurance).toBe(1);
  });

  it('takes no index from the spot market alone; an outside source sets it and the mark follows (issue 24 finding 1)', async () => {
    const long = await aliceLong();
    await b.order('carol', carol, true, 89, 1);
    const request = (await import('supertest')).default;
    const { bearer } = await import('../../support/harness');
    for (const u of ['s1', 's2']) {
      await request(b.app).post('/api/admin/deposits').set('Authorization', (await import('./helpers')).admin)
        .send({ userId: u, currencyCode: u === 's1' ? 'USDT' : 'BTC', amount: 1000 });
    }
    await request(b.app).post('/api/orders').set('Authorization', bearer('s1')).send({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 85.5, amount: 1 });
    await request(b.app).post('/api/orders').set('Authorization', bearer('s2')).send({ currencyPairCode: 'BTC_USDT', side: 'sell', type: 'limit', price: 85.62, amount: 1 });
    const pair = (await b.ctx.markets.store.getPair('futures', 'BTC_USDT'))!;
    // spot mid 85.56, but no outside source: no index, and the mark is the last trade, 100
    expect(await b.ctx.futures.prices.markTicks(pair)).toBe('1000');
    expect(await b.ctx.futures.risk.sweepLiquidations('BTC_USDT')).toEqual([]);
    // an operator's 85.6: the index; the futures book cannot fill the impact notional (basis 0) and
    // the last trade is held within 0.25 % of it: mark 85.6, alice's liquidation price 90.5 is crossed
    expect((await b.setIndex('BTC_USDT', 85.6)).status).toBe(200);
    expect(await b.ctx.futures.risk.sweepLiquidations('BTC_USDT')).toEqual([String(long)]);
    expect(await b.ctx.futures.prices.markTicks(pair)).toBe('856');
  });
});

describe('admin index price', () => {
  it('sets the index (the mark where no spot market trades) and refuses bad input without a change', async () => {
    const request = (await import('supertest')).default;
    const { bearer } = await import('../../support/harness');
    const { admin } = await import('./helpers');
    const pair = (await b.ctx.markets.store.getPair('futures', 'ETH_USDT'))!;
    const ok = await b.setIndex('ETH_USDT', 2000.129);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ currencyPairCode: 'ETH_USDT', price: 2000.12 });
    expect(await b.ctx.futures.prices.markTicks(pair)).toBe('200012');
    const post = (auth: string, body: Record<string, unknown>) =>
      request(b.app).post('/api/admin/index-price').set('Authorization', auth).send(body);
    const cases: [string, Record<string, unknown>, number, string][] = [
      [bearer('alice'), { currencyPairCode: 'ETH_USDT', price: 1 }, 403, 'ADMIN_ONLY'],
      [admin, { currencyPairCode: 'NOPE_USDT', price: 1 }, 404, 'PAIR_NOT_FOUND'],
      [admin, { currencyPairCode: 'ETH_USDT', price: -1 }, 400, 'VALIDATION_FAILED'],
      [admin, { currencyPairCode: 'ETH_USDT', price: 0.001 }, 422, 'PRICE_OUT_OF_RANGE'],
      [admin, { currencyPairCode: 'ETH_USDT', price: 1, extra: true }, 400, 'VALIDATION_FAILED'],
      [admin, { price: 1 }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [auth, body, status, code] of cases) {
      const r = await post(auth, body);
      expect([JSON.stringify(body), r.status, r.body.error?.code]).toEqual([JSON.stringify(body), status, code]);
    }
    expect((await request(b.app).post('/api/admin/index-price').send({ currencyPairCode: 'ETH_USDT', price: 1 })).status).toBe(401);
    expect(await b.ctx.futures.prices.markTicks(pair)).toBe('200012');
  });
});

describe('funding', () => {
  it('longs pay shorts at a positive rate, once per round, zero-sum with the insurance fund', async () => {
    const total = await b.usdtTotal();
    const long = await aliceLong();
    const short = (await b.get('bob', `${TRADE}/positions`)).body[0].id;
    await b.setIndex('BTC_USDT', 100);
    const now = Date.now();
    expect(await b.ctx.futures.risk.runFundingRound('BTC_USDT', now)).toBe(true);
    expect(await b.ctx.futures.risk.runFundingRound('BTC_USDT', now)).toBe(false);
    // rate 0.01 %: 100 x 1 x 0.0001 = 0.01
    expect(await b.record('alice', long)).toMatchObject({ fundingFee: 0.01, currentMargin: 9.99, initialMargin: 10 });
    expect(await b.record('bob', short)).toMatchObject({ fundingFee: -0.01, currentMargin: 10.01 });
    expect((await b.account('alice', alice)).usedMargin).toBe(9.99);
    expect(await b.usdtTotal()).toBe(total);
    // the next round settles again
    expect(await b.ctx.futures.risk.runFundingRound('BTC_USDT', now + 28_800_000)).toBe(true);
    expect((await b.record('alice', long)).fundingFee).toBe(0.02);
  });
  // premium samples and the rate: futures-prices.test.ts and futures-funding.test.ts
});

describe('BullMQ wiring', () => {
  it('a trigger job sweeps its market, and the funding scheduler settles a round', async () => {
    const fast = await futuresBedWithInterval();
    try {
      const long = await fast.order('alice', fast.a, true, 100, 1, { takeProfit: 110 });
      await fast.order('bob', fast.bobAcct, false, null, 1);
      await fast.order('carol', fast.c, true, 112, 2);
      await fast.order('dan', fast.d, false, null, 0.1);
      const workers = await startFuturesWorkers(fast.ctx);
      const conn = createRedis({ url: fast.ctx.config.redisUrl, cluster: fast.ctx.config.redisCluster, blocking: true });
      const q = new Queue(queueName(FUTURES_TRIGGERS_QUEUE), { connection: conn, prefix: fast.ctx.keys.bullPrefix() });
      try {
        await q.add('entry', { kind: 'futures', pair: 'BTC_USDT', entryId: '1-0', ts: Date.now(), events: [] });
        await waitFor(async () => (await fast.record('alice', long)).futuresOrderStatus === 20);
        await fast.setIndex('BTC_USDT', 100);
        await fast.order('carol', fast.c, true, 100, 1);
        await fast.order('dan', fast.d, false, null, 1);
        await waitFor(async () => Boolean(await fast.ctx.redis.hget(fast.ctx.keys.fundingState('BTC_USDT'), 'round')));
      } finally {
        await q.close();
        await workers.close();
        conn.disconnect();
      }
    } finally {
      await fast.ctx.cleanup();
    }
  });
});

describe('stream to trigger sweep, end to end', () => {
  it('the dispatcher hands a futures trade to the trigger queue and the TP closes', async () => {
    const { startWorkerRole } = await import('../../../src/transport/workers/worker-role');
    const long = await aliceLong({ takeProfit: 110 });
    // unlevered: a sweep at a mark taken just before the 112 print must not liquidate the bid's long
    const erin = await b.fundedAccount('erin', 1000, 1);
    await b.order('erin', erin, true, 112, 2);
    const role = await startWorkerRole(b.ctx, { blockMs: 200, refreshPairsMs: 60_000, claimEveryMs: 60_000 });
    const workers = await startFuturesWorkers(b.ctx);
    try {
      await b.order('dan', dan, false, null, 0.1); // last 112: the stream entry reaches the worker
      await waitFor(async () => (await b.record('alice', long)).futuresOrderStatus === 20);
      expect((await b.record('alice', long)).realizedPnl).toBe(12);
    } finally {
      await workers.close();
      await role.close();
    }
  });
});

async function futuresBedWithInterval() {
  const h = await futuresBed({ FUNDING_INTERVAL_SECONDS: '1' });
  const a = await h.fundedAccount('alice');
  const bobAcct = await h.fundedAccount('bob');
  const c = await h.fundedAccount('carol');
  const d = await h.fundedAccount('dan');
  return { ...h, a, bobAcct, c, d };
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
