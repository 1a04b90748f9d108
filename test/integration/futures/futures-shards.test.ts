import request from 'supertest';
import { shardOfId } from '../../../src/domain/shard-ids';
import { bearer } from '../../support/harness';
import { expectDrainedOnce, expectReconciled, httpHelpers, userWithHome } from '../shards/shard-fixture';
import { admin, futuresBed } from './helpers';
import { startFuturesWorkers } from '../../../src/futures/workers/futures-workers';

/**
 * Futures markets on engine shards 1 and 2 (ENGINE_SHARDS=3; on one Redis, and on the 3-master cluster
 * of the cluster run): an account is registered at its owner's home, where margin transfers land, and
 * its margin moves to a market's shard by the transfer protocol when an order there needs it
 * (docs/futures.md, "Futures on engine shards"). SOL_USDT and XRP_USDT: 0.01 price ticks, 0.001 lots, contract value 1, maintenance
 * 1 %, maker 0.02 %, taker 0.05 %.
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
let h: ReturnType<typeof httpHelpers>;
const SOL = 'SOL_USDT'; // shard 1
const XRP = 'XRP_USDT'; // shard 2

beforeEach(async () => {
  // no idle sweeps during a test: only what a test does moves money
  b = await futuresBed({ ENGINE_SHARDS: '3', ESCROW_HEADROOM_PERCENT: '10', ESCROW_IDLE_SECONDS: '3600' });
  h = httpHelpers(b.app);
  for (const [base, shard] of [['SOL', 1], ['XRP', 2]] as const) {
    expect((await request(b.app).post('/api/admin/currencies').set('Authorization', admin).send({ code: base, name: base, decimals: 8 })).status).toBe(200);
    const pair = await request(b.app).post('/api/admin/pairs').set('Authorization', admin).send({
      kind: 'futures', baseCurrencyCode: base, quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 3, minBaseAmount: 0.001,
      minQuoteAmount: 5, makerFee: 0.0002, takerFee: 0.0005, contractValue: 1, lotSize: 0.001, maxLeverage: 50,
      maintenanceMarginRate: 0.01, engineShard: shard,
    });
    expect([pair.status, pair.body.engineShard]).toEqual([200, shard]);
  }
});
afterEach(async () => b.ctx.cleanup());

const order = (user: string, acct: number, pair: string, isLong: boolean, price: number | null, amount: number, extra: Record<string, unknown> = {}) =>
  b.create(user, { isMarket: price === null, isLong, price: price ?? 0, amount, currencyPairCode: pair, futuresAccountId: acct, ...extra });

/** The account's hash on `shard`: free and locked margin there, minor units. */
async function marginOn(shard: number, acct: number): Promise<{ balance: bigint; locked: bigint }> {
  const [balance, locked] = await b.ctx.redis.hmget(b.ctx.shards.keys(shard).futuresAccount(acct), 'balance', 'locked');
  return { balance: BigInt(balance ?? '0'), locked: BigInt(locked ?? '0') };
}

/** Σ over the shards of the account's free and locked margin, minor units, read straight from the hashes. */
async function marginEverywhere(acct: number): Promise<{ balance: bigint; locked: bigint }> {
  let balance = 0n;
  let locked = 0n;
  for (let shard = 0; shard < 3; shard++) {
    const m = await marginOn(shard, acct);
    balance += m.balance;
    locked += m.locked;
  }
  return { balance, locked };
}

const minor = (n: number) => BigInt(Math.round(n * 1e8));

/** Every currency reconciles exactly, nothing in transit, and USDT is conserved (test/support/money.ts). */
async function expectAtRest(): Promise<void> {
  expectReconciled(await h.reconcile());
  await b.usdtTotal();
}

describe('futures markets on engine shards 1 and 2', () => {
  it('opens positions on both shards from one account, funds on one, liquidates on the other; merged reads, conservation and the reconciler exact', async () => {
    const alice = await userWithHome(b.ctx, 2, 'alice');
    const bob = await userWithHome(b.ctx, 1, 'bob');
    const a = await b.fundedAccount(alice, 1000, 10);
    const c = await b.fundedAccount(bob, 1000, 10);
    const total = await b.usdtTotal();
    // each account is registered at its owner's home, its id naming it, and margin transfers land there
    expect([shardOfId(String(a)), shardOfId(String(c))]).toEqual([2, 1]);
    expect(await marginOn(2, a)).toEqual({ balance: minor(1000), locked: 0n });
    expect(await marginOn(1, c)).toEqual({ balance: minor(1000), locked: 0n });
    for (const shard of [0, 1]) expect([shard, await b.ctx.redis.exists(b.ctx.shards.keys(shard).futuresAccount(a))]).toEqual([shard, 0]);

    // alice long 1 SOL at 100 and 2 XRP at 50 (margin 10 each at 10x); bob takes the other side at market
    const solLong = await order(alice, a, SOL, true, 100, 1);
    const xrpLong = await order(alice, a, XRP, true, 50, 2);
    expect([solLong.status, xrpLong.status]).toEqual([200, 200]);
    expect([shardOfId(String(solLong.body.id)), shardOfId(String(xrpLong.body.id))]).toEqual([1, 2]);
    expect((await order(bob, c, SOL, false, null, 1)).status).toBe(200);
    expect((await order(bob, c, XRP, false, null, 2)).status).toBe(200);
    // each market's shard holds the margin its positions lock, topped up by the shortfall plus 10 %
    const onOne = await marginOn(1, a);
    expect(onOne.locked).toBeGreaterThan(0n);
    expect((await marginOn(2, a)).locked).toBeGreaterThan(0n);
    expect(await b.usdtTotal()).toBe(total);
    expectReconciled(await h.reconcile());

    // the account reads whole: free + used over every shard, as the hashes hold it
    const whole = await marginEverywhere(a);
    const dto = await b.account(alice, a);
    expect([minor(dto.available), minor(dto.usedMargin), minor(dto.balance)]).toEqual([whole.balance, whole.locked, whole.balance + whole.locked]);
    // positions of both shards in one list; pages of one are exact
    const all = (await b.get(alice, '/api/futures/trade/positions?IsActive=true')).body.map((p: { id: number }) => p.id);
    expect([...all].sort()).toEqual([solLong.body.id, xrpLong.body.id].sort());
    const page1 = (await b.get(alice, '/api/futures/trade/positions?IsActive=true&PageSize=1&Page=1')).body.map((p: { id: number }) => p.id);
    const page2 = (await b.get(alice, '/api/futures/trade/positions?IsActive=true&PageSize=1&Page=2')).body.map((p: { id: number }) => p.id);
    expect([...page1, ...page2]).toEqual(all);
    expect((await b.get(alice, `/api/futures/trade/orders-history?FuturesAccountId=${a}`)).body.map((o: { id: number }) => o.id)).toEqual(all);

    // funding on shard 1: zero-sum (what the payer paid the receiver got, less a sub-unit residue to the fund)
    expect((await b.setIndex(SOL, 101)).status).toBe(200);
    const T = b.ctx.config.fundingIntervalSeconds * 1000;
    const now = (Math.floor(Date.now() / T) + 1) * T;
    const round = await b.ctx.futures.risk.settleFundingRound(SOL, now);
    expect(round?.settled).toBe(true);
    expect(round?.positions).toBe(2);
    expect(BigInt(round!.collected) - BigInt(round!.paid)).toBeGreaterThanOrEqual(0n);
    expect(await b.usdtTotal()).toBe(total);

    // a liquidation on shard 2: mark 40, far below alice's XRP liquidation price (about 45.2)
    const fund2 = await b.ctx.redis.hget(b.ctx.shards.keys(2).insuranceFund(), 'USDT');
    expect(await b.ctx.futures.engine.liquidate(XRP, '4000', Date.now())).toEqual([String(xrpLong.body.id)]);
    expect((await b.record(alice, xrpLong.body.id)).futuresOrderStatus).toBe(20);
    expect((await b.record(alice, solLong.body.id)).futuresOrderStatus).toBe(50);
    // shard 0's and shard 1's insurance funds are untouched by a liquidation on shard 2
    expect(await b.ctx.redis.hget(b.ctx.shards.keys(1).insuranceFund(), 'USDT')).toBe(fund2);
    expect((await marginOn(2, a)).locked).toBe(0n);
    expect(await b.usdtTotal()).toBe(total);
    expectReconciled(await h.reconcile());
    const usdt = (await h.reconcile()).find((r) => r.currencyCode === 'USDT')!;
    const accounts = (await marginEverywhere(a)).balance + (await marginEverywhere(a)).locked + (await marginEverywhere(c)).balance + (await marginEverywhere(c)).locked;
    expect(minor(usdt.terms.futuresAccounts)).toBe(accounts);
    // and per shard: each shard's part is the two accounts' hashes there
    const perShard = (usdt as unknown as { shards: { shard: number; futuresAccounts: number }[] }).shards;
    for (let shard = 0; shard < 3; shard++) {
      const [x, y] = [await marginOn(shard, a), await marginOn(shard, c)];
      expect([shard, minor(perShard[shard].futuresAccounts)]).toEqual([shard, x.balance + x.locked + y.balance + y.locked]);
    }

    // the account's free margin goes back to the wallet whole: what sits on shard 1 comes home (shard 2) first
    const free = (await marginEverywhere(a)).balance;
    const back = await request(b.app).post('/api/wallet/transfer').set('Authorization', bearer(alice))
      .send({ fromFuturesAccountId: a, toFuturesAccountId: null, currencyCode: 'USDT', amount: Number(free) / 1e8 });
    expect(back.status).toBe(200);
    expect((await marginEverywhere(a)).balance).toBe(0n);
    expect(minor((await h.balances(alice)).USDT.available)).toBe(free);
    await expectAtRest();
  });

  it('places one order for one clientOrderId sent many times at once, moving its margin once', async () => {
    const user = await userWithHome(b.ctx, 1, 'clid');
    const acct = await b.fundedAccount(user, 100, 10);
    const same = await Promise.all(Array.from({ length: 8 }, () => order(user, acct, SOL, true, 100, 1, { clientOrderId: 'once' })));
    expect(same.map((r) => r.status)).toEqual(same.map(() => 200));
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    const history = (await b.get(user, '/api/futures/trade/orders-history')).body;
    expect(history.map((o: { id: number }) => o.id)).toEqual([same[0].body.id]);
    // one order's margin locked, everything else still free somewhere: the account reads 100 whole
    const m = await marginEverywhere(acct);
    expect(m.balance + m.locked).toBe(minor(100));
    expect(m.locked).toBe((await marginOn(1, acct)).locked);
    await expectAtRest();
  });

  it('places one order for one clientOrderId sent to markets on three shards, one after the other or at once', async () => {
    const user = await userWithHome(b.ctx, 2, 'three');
    const acct = await b.fundedAccount(user, 1000, 10);
    // shard 1 first: the registry at home (shard 2) records the claim, so shard 2 and shard 0 answer the same order
    const first = await order(user, acct, SOL, true, 100, 1, { clientOrderId: 'one' });
    expect(first.status).toBe(200);
    for (const pair of [XRP, 'BTC_USDT']) {
      const again = await order(user, acct, pair, true, pair === XRP ? 50 : 1000, 1, { clientOrderId: 'one' });
      expect([pair, again.status, again.body.id]).toEqual([pair, 200, first.body.id]);
    }
    // shard 0 first: claimed at home for shard 0, whose order holds it there; a market of shard 1 answers it
    const home = await order(user, acct, 'BTC_USDT', true, 1000, 0.01, { clientOrderId: 'two' });
    expect(home.status).toBe(200);
    expect((await order(user, acct, SOL, true, 100, 1, { clientOrderId: 'two' })).body.id).toBe(home.body.id);
    // all at once, to all three markets
    const racing = await Promise.all([SOL, XRP, 'BTC_USDT', SOL, XRP, 'BTC_USDT'].map((pair) =>
      order(user, acct, pair, true, pair === 'BTC_USDT' ? 1000 : 50, pair === 'BTC_USDT' ? 0.01 : 1, { clientOrderId: 'three' })));
    const ok = racing.filter((r) => r.status === 200);
    for (const r of racing) if (r.status !== 200) expect([r.status, r.body.error.code]).toEqual([409, 'CLIENT_ORDER_ID_IN_USE']);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(1);
    const history = (await b.get(user, '/api/futures/trade/orders-history')).body as { clientOrderId: string | null }[];
    expect(history.map((o) => o.clientOrderId).sort()).toEqual(['one', 'three', 'two']);
    await expectAtRest();
  });

  it('places many orders sent at once that each need a top-up, and never spends one margin twice', async () => {
    const user = await userWithHome(b.ctx, 0, 'many');
    const acct = await b.fundedAccount(user, 60, 10);
    // 8 orders of margin 10 (plus fee) on two shards against 60: at most 5 can stand
    const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => order(user, acct, i % 2 ? SOL : XRP, true, 100, 1)));
    const placed = sent.filter((r) => r.status === 200);
    for (const r of sent) if (r.status !== 200) expect([r.status, r.body.error.code]).toContainEqual(expect.stringMatching(/^(INSUFFICIENT_MARGIN|ESCROW_BUSY)$/));
    expect(placed.length).toBeGreaterThanOrEqual(1);
    expect(placed.length).toBeLessThanOrEqual(5);
    const m = await marginEverywhere(acct);
    expect(m.balance + m.locked).toBe(minor(60));
    expect(m.balance >= 0n && m.locked >= 0n).toBe(true);
    await expectAtRest();
  });

  it('moves a margin transfer sent many times at once with one Idempotency-Key once', async () => {
    const user = await userWithHome(b.ctx, 2, 'idem');
    const acct = await b.fundedAccount(user, 100, 10);
    expect((await order(user, acct, SOL, true, 100, 1)).status).toBe(200);
    const before = (await h.balances(user)).USDT.available;
    const sent = await Promise.all(Array.from({ length: 6 }, () => request(b.app).post('/api/wallet/transfer').set('Authorization', bearer(user))
      .set('Idempotency-Key', 'back-once').send({ fromFuturesAccountId: acct, toFuturesAccountId: null, currencyCode: 'USDT', amount: 50 })));
    expect(sent.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of sent) expect([200, 409]).toContain(r.status);
    expect((await h.balances(user)).USDT.available).toBe(before + 50);
    const m = await marginEverywhere(acct);
    expect(m.balance + m.locked).toBe(minor(50));
    await expectAtRest();
  });
});

describe('idle margin goes back home', () => {
  it('sweeps an account\'s free margin on a shard once it is idle and locks nothing there, never while an order holds margin', async () => {
    const user = await userWithHome(b.ctx, 2, 'idle');
    const acct = await b.fundedAccount(user, 100, 10);
    const resting = await order(user, acct, SOL, true, 100, 1);
    expect(resting.status).toBe(200);
    const escrow = b.ctx.funds.escrow as NonNullable<typeof b.ctx.funds.escrow>;
    // an open order locks margin on shard 1: nothing moves, however idle
    expect(await escrow.sweepIdle(1, undefined, 0)).toBe(0);
    expect((await marginOn(1, acct)).locked).toBeGreaterThan(0n);
    const close = await b.put(user, '/api/futures/trade/close', { orderId: resting.body.id, isMarket: true });
    expect(close.status).toBe(200);
    expect((await marginOn(1, acct)).locked).toBe(0n);
    const free = (await marginOn(1, acct)).balance;
    expect(free).toBeGreaterThan(0n);
    // the policy's idle time has not passed (3600 s): nothing moves
    expect(await escrow.sweepIdle(1)).toBe(0);
    expect(await escrow.sweepIdle(1, undefined, 0)).toBe(1);
    expect(await marginOn(1, acct)).toEqual({ balance: 0n, locked: 0n });
    expect((await marginOn(2, acct)).balance).toBe(minor(100));
    await expectAtRest();
  });
});

describe('futures workers per engine shard', () => {
  it("each shard's mark tick and funding schedule run its own markets", async () => {
    await b.ctx.cleanup();
    b = await futuresBed({ ENGINE_SHARDS: '3', FUNDING_INTERVAL_SECONDS: '1', ESCROW_IDLE_SECONDS: '3600' });
    h = httpHelpers(b.app);
    for (const [base, shard] of [['SOL', 1], ['XRP', 2]] as const) {
      await request(b.app).post('/api/admin/currencies').set('Authorization', admin).send({ code: base, name: base, decimals: 8 });
      const pair = await request(b.app).post('/api/admin/pairs').set('Authorization', admin).send({
        kind: 'futures', baseCurrencyCode: base, quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 3, minBaseAmount: 0.001,
        minQuoteAmount: 5, makerFee: 0.0002, takerFee: 0.0005, contractValue: 1, lotSize: 0.001, maxLeverage: 50,
        maintenanceMarginRate: 0.01, engineShard: shard,
      });
      expect(pair.status).toBe(200);
    }
    const a = await b.fundedAccount('walt', 1000, 10);
    const c = await b.fundedAccount('wendy', 1000, 10);
    const total = await b.usdtTotal();
    for (const pair of [SOL, XRP]) {
      expect((await b.setIndex(pair, 100)).status).toBe(200);
      expect((await order('walt', a, pair, true, 100, 1)).status).toBe(200);
      expect((await order('wendy', c, pair, false, null, 1)).status).toBe(200);
    }
    const workers = await startFuturesWorkers(b.ctx);
    try {
      const settled = async (shard: number, pair: string) =>
        Boolean(await b.ctx.redis.hget(b.ctx.shards.keys(shard).fundingState(pair), 'round')) &&
        Boolean(await b.ctx.redis.hget(b.ctx.shards.keys(shard).markPrice(pair), 'p'));
      const deadline = Date.now() + 20_000;
      while (!((await settled(1, SOL)) && (await settled(2, XRP))) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect([await settled(1, SOL), await settled(2, XRP)]).toEqual([true, true]);
      // nothing of a market is written under another shard's tag
      // (one key per call: keys of two shards' tags are two slots on a cluster)
      for (const key of [b.ctx.shards.keys(0).markPrice(SOL), b.ctx.shards.keys(2).markPrice(SOL), b.ctx.shards.keys(0).markPrice(XRP)]) {
        expect([key, await b.ctx.redis.exists(key)]).toEqual([key, 0]);
      }
    } finally {
      await workers.close();
    }
    expect(await b.usdtTotal()).toBe(total);
    expectReconciled(await h.reconcile());
  });
});

describe('margin transfer faults', () => {
  it('an api that dies after the debit: the account reads whole meanwhile, a drain delivers once, the order then goes through', async () => {
    const user = await userWithHome(b.ctx, 1, 'crash');
    const acct = await b.fundedAccount(user, 100, 10);
    const relay = b.ctx.funds.relay as NonNullable<typeof b.ctx.funds.relay>;
    // the relay dies between step 1 (debit at home, shard 1, outbox) and step 2
    // (the api delivers what it just sent through deliverSent)
    const deliver = jest.spyOn(relay, 'deliverSent').mockRejectedValueOnce(new Error('api process killed'));
    const died = await order(user, acct, XRP, true, 100, 1);
    expect(died.status).toBe(500);
    deliver.mockRestore();
    expect((await marginOn(1, acct)).balance).toBeLessThan(minor(100));
    expect((await marginOn(2, acct)).balance).toBe(0n);
    // in flight: the merged read counts it once as free margin; the reconciler as in transit
    expect(minor((await b.account(user, acct)).available)).toBe(minor(100));
    expect(await relay.drain(0, 0)).toBe(0);
    await expectDrainedOnce(h.reconcile, relay, 1);
    expect((await marginEverywhere(acct)).balance).toBe(minor(100));
    await expectAtRest();
    expect((await order(user, acct, XRP, true, 100, 1)).status).toBe(200);
    const m = await marginEverywhere(acct);
    expect(m.balance + m.locked).toBe(minor(100));
    await expectAtRest();
  });

  it('a credit whose reply is lost is delivered again without crediting twice', async () => {
    const user = await userWithHome(b.ctx, 2, 'lost');
    const acct = await b.fundedAccount(user, 100, 10);
    const ledger = b.ctx.funds.ledger;
    const credit = ledger.creditAll.bind(ledger);
    // the credit runs on the shard, then its reply is lost on the way back
    const spy = jest.spyOn(ledger, 'creditAll').mockImplementationOnce(async (...args) => {
      await credit(...args);
      throw Object.assign(new Error('Connection is closed.'), { name: 'Error' });
    });
    const first = await order(user, acct, SOL, true, 100, 1);
    expect(first.status).toBeGreaterThanOrEqual(500);
    spy.mockRestore();
    const relay = b.ctx.funds.relay as NonNullable<typeof b.ctx.funds.relay>;
    // sent from home, shard 2
    expect(await relay.drain(2, 0)).toBe(1);
    const m = await marginEverywhere(acct);
    expect(m.balance + m.locked).toBe(minor(100));
    await expectAtRest();
    expect((await order(user, acct, SOL, true, 100, 1)).status).toBe(200);
    await expectAtRest();
  });
});
