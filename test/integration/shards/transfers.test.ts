import request from 'supertest';
import { shardOfId } from '../../../src/domain/shard-ids';
import { bearer } from '../../support/harness';
import { newTransfer } from '../../../src/wallet/transfer-ledger';
import { SpotEngine } from '../../../src/spot/spot-engine';
import { durableRedis, type ShardRedis, expectReconciled, shardWorld, userWithHome } from './shard-fixture';

// Seeded markets with ENGINE_SHARDS=3: BTC_USDT on shard 0, ETH_USDT on shard 1, BTC_USDT.TRC20 on shard 2.
const buy = (pair: string, price: number, amount: number, extra: Record<string, unknown> = {}) => ({
  currencyPairCode: pair, side: 'buy', type: 'limit', price, amount, ...extra,
});
const sell = (pair: string, price: number, amount: number) => ({ currencyPairCode: pair, side: 'sell', type: 'limit', price, amount });

let server: ShardRedis;
let w: Awaited<ReturnType<typeof shardWorld>>;
beforeAll(async () => {
  server = await durableRedis();
});
afterAll(async () => server.stop());
beforeEach(async () => {
  // no idle sweeps during a test: only what a test does moves money
  w = await shardWorld(server, 3, { ESCROW_HEADROOM_PERCENT: '10', ESCROW_IDLE_SECONDS: '3600' });
});
afterEach(async () => w.ctx.cleanup());

/** A user at home on `home` with 10,000 of both quote currencies (USDT and USDT.TRC20). */
async function quotedUser(home: number, prefix: string): Promise<string> {
  const user = await userWithHome(w.ctx, home, prefix);
  await w.deposit(user, 'USDT', 10_000);
  await w.deposit(user, 'USDT.TRC20', 10_000);
  return user;
}

const escrowOf = async (shard: number, user: string, cur: string) =>
  Number((await w.ctx.redis.hget(w.ctx.shards.keys(shard).walletAvailable(user), cur)) ?? '0');

describe('orders paid from a home on another shard', () => {
  it('tops up the shortfall plus the headroom from home, in the request, and reads the user whole', async () => {
    const user = await userWithHome(w.ctx, 2, 'topup');
    await w.deposit(user, 'USDT', 10_000);
    const r = await w.place(user, buy('ETH_USDT', 1000, 2));
    expect([r.status, r.body.status]).toEqual([200, 'open']);
    // 2,000 reserved on shard 1, and 10 % headroom left free there
    expect(await escrowOf(1, user, 'USDT')).toBe(200 * 1e8);
    expect(await escrowOf(2, user, 'USDT')).toBe(7800 * 1e8);
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 8000, reserved: 2000 });
    expectReconciled(await w.reconcile());
  });

  it("spends on one shard what a sale on another just paid, sweeping the proceeds home first", async () => {
    const maker = await userWithHome(w.ctx, 0, 'maker');
    await w.deposit(maker, 'USDT', 100_000);
    expect((await w.place(maker, buy('BTC_USDT', 30_000, 1))).status).toBe(200);
    const seller = await userWithHome(w.ctx, 2, 'seller');
    await w.deposit(seller, 'BTC', 1);
    const sale = await w.place(seller, sell('BTC_USDT', 30_000, 1));
    expect([sale.status, sale.body.status]).toEqual([200, 'filled']);
    // taker fee 0.2 %: 29,940 USDT of proceeds sit in escrow on shard 0, none at home
    expect(await escrowOf(0, seller, 'USDT')).toBe(29_940 * 1e8);
    const next = await w.place(seller, buy('ETH_USDT', 2000, 10));
    expect([next.status, next.body.status]).toEqual([200, 'open']);
    expect(await escrowOf(0, seller, 'USDT')).toBe(0);
    expect((await w.balances(seller)).USDT).toEqual({ currencyCode: 'USDT', available: 9940, reserved: 20_000 });
    expectReconciled(await w.reconcile());
  });

  it('sweeps free escrow home when an order on the home shard finds home short', async () => {
    const user = await userWithHome(w.ctx, 0, 'homeshort');
    await w.deposit(user, 'USDT', 1000);
    expect((await w.place(user, buy('ETH_USDT', 100, 1))).status).toBe(200); // 100 reserved on shard 1, 10 free there
    const r = await w.place(user, buy('BTC_USDT', 900, 1)); // home holds 890: the 10 on shard 1 come back
    expect([r.status, r.body.status]).toEqual([200, 'open']);
    expect(await escrowOf(1, user, 'USDT')).toBe(0);
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 0, reserved: 1000 });
    const broke = await w.place(user, buy('BTC_USDT', 1, 1));
    expect([broke.status, broke.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expectReconciled(await w.reconcile());
  });

  it('places every one of many orders sent at once that need the same top-up', async () => {
    const user = await userWithHome(w.ctx, 2, 'burst');
    await w.deposit(user, 'USDT', 10_000);
    const replies = await Promise.all(Array.from({ length: 20 }, () => w.place(user, buy('ETH_USDT', 100, 1))));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 8000, reserved: 2000 });
    expectReconciled(await w.reconcile());
  });

  it('never lets conflicting orders on two shards spend one home twice', async () => {
    const user = await userWithHome(w.ctx, 2, 'drain');
    await w.deposit(user, 'USDT', 1000);
    const orders = Array.from({ length: 20 }, (_, i) => (i % 2 ? buy('BTC_USDT', 150, 1) : buy('ETH_USDT', 150, 1)));
    const replies = await Promise.all(orders.map((o) => w.place(user, o)));
    const accepted = replies.filter((r) => r.status === 200).length;
    for (const r of replies) if (r.status !== 200) expect([r.status, r.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(6);
    const b = (await w.balances(user)).USDT;
    expect(b.reserved).toBe(accepted * 150);
    expect(b.available).toBe(1000 - accepted * 150);
    expectReconciled(await w.reconcile());
  });
});

describe('every order a top-up (no headroom)', () => {
  let bare: Awaited<ReturnType<typeof shardWorld>>;
  beforeEach(async () => {
    bare = await shardWorld(server, 3, { ESCROW_HEADROOM_PERCENT: '0', ESCROW_IDLE_SECONDS: '3600' });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await bare.ctx.cleanup();
  });

  it('tops up before placing once an order found the escrow short, each transfer without a mark where the sender fsyncs', async () => {
    const user = await userWithHome(bare.ctx, 2, 'bare');
    await bare.deposit(user, 'USDT', 10_000);
    const placements = jest.spyOn(SpotEngine.prototype, 'place');
    const marks = jest.spyOn(bare.ctx.funds.ledger, 'mark');
    for (let i = 0; i < 3; i++) expect((await bare.place(user, buy('ETH_USDT', 100, 1))).status).toBe(200);
    // the first order runs twice (short, then topped up); the next two find the hint and top up first
    expect(placements).toHaveBeenCalledTimes(4);
    expect(marks).not.toHaveBeenCalled();
    expect(await bare.ctx.funds.ledger.outbox(1)).toEqual([]);
    expect(await bare.ctx.funds.ledger.outbox(2)).toEqual([]);
    expect(await escrowOf(1, user, 'USDT')).toBe(0);
    expect((await bare.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 9700, reserved: 300 });
    expectReconciled(await bare.reconcile());
  });

  it('places every one of many orders sent at once, each needing its own top-up, and spends home once', async () => {
    const user = await userWithHome(bare.ctx, 2, 'bareburst');
    await bare.deposit(user, 'USDT', 1000);
    const orders = Array.from({ length: 20 }, (_, i) => (i % 2 ? buy('BTC_USDT', 150, 1) : buy('ETH_USDT', 150, 1)));
    const replies = await Promise.all(orders.map((o) => bare.place(user, o)));
    const accepted = replies.filter((r) => r.status === 200).length;
    for (const r of replies) if (r.status !== 200) expect([r.status, r.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(6);
    expect((await bare.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 1000 - accepted * 150, reserved: accepted * 150 });
    expectReconciled(await bare.reconcile());
  });
});

describe('transfer faults', () => {
  /** A user at home on shard 2 with 500 USDT, and step 1 of a transfer of `amount` of it to `to`, nothing more. */
  async function sentTransfer(prefix: string, to: number, amount: number) {
    const user = await userWithHome(w.ctx, 2, prefix);
    await w.deposit(user, 'USDT', 500);
    const t = newTransfer(user, 'USDT', 2, to);
    expect(await w.ctx.funds.ledger.send(t, 'exact', String(amount * 1e8), String(amount * 1e8))).toBe(String(amount * 1e8));
    return { user, t };
  }

  it('counts a transfer whose relay died after the debit once, and a worker drain delivers it', async () => {
    const { user } = await sentTransfer('crash', 1, 300);
    // the api died here: debited at home, not credited
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 500, reserved: 0 });
    const inFlight = await w.reconcile();
    expectReconciled(inFlight, false);
    expect(inFlight.find((c) => c.currencyCode === 'USDT')?.terms.inTransit).toBe(300);
    expect(await w.ctx.funds.relay?.drain(2, 0)).toBe(1);
    expect(await escrowOf(1, user, 'USDT')).toBe(300e8);
    expect((await w.balances(user)).USDT.available).toBe(500);
    expectReconciled(await w.reconcile());
  });

  it('credits once whatever number of times, and however concurrently, a transfer is delivered', async () => {
    const { user, t } = await sentTransfer('twice', 0, 200);
    // the same step 1 again is a replay: nothing more is debited
    await w.ctx.funds.ledger.send(t, 'exact', String(200e8), String(200e8));
    const relay = w.ctx.funds.relay as NonNullable<typeof w.ctx.funds.relay>;
    await Promise.all(Array.from({ length: 5 }, () => relay.deliver(t)));
    await relay.deliver(t);
    expect(await w.ctx.funds.ledger.credit(w.ctx.redis, t, true)).toBe(false);
    expect(await relay.drain(2, 0)).toBe(0);
    expect(await escrowOf(0, user, 'USDT')).toBe(200e8);
    expect(await escrowOf(2, user, 'USDT')).toBe(300e8);
    expectReconciled(await w.reconcile());
  });

  it('never credits a debit that was lost before it was durable', async () => {
    const { user, t } = await sentTransfer('lost', 1, 100);
    // what a restart from an AOF without the debit leaves: no record, no outbox entry, the money home
    const k = w.ctx.shards.keys(2);
    const [entry] = await w.ctx.redis.xrange(k.outbox(), '-', '+');
    await w.ctx.redis.multi().del(k.transfer(t.id)).xdel(k.outbox(), entry[0]).hdel(k.userTransfersPending(user), t.id)
      .hset(k.walletAvailable(user), 'USDT', String(500e8)).exec();
    await expect(w.ctx.funds.relay?.deliver(t)).rejects.toMatchObject({ status: 503, code: 'TRANSFER_LOST' });
    expect(await escrowOf(1, user, 'USDT')).toBe(0);
    expect(await w.ctx.redis.exists(w.ctx.shards.keys(1).transferCredit(t.id))).toBe(0);
    expectReconciled(await w.reconcile());
  });
});

describe('clientOrderId over every market, across shards', () => {
  it('places one order for one clientOrderId sent to markets on two shards, one after the other or at once', async () => {
    const user = await quotedUser(2, 'clid');
    const first = await w.place(user, buy('BTC_USDT', 100, 1, { clientOrderId: 'one' }));
    expect(first.status).toBe(200);
    const elsewhere = await w.place(user, buy('ETH_USDT', 100, 1, { clientOrderId: 'one' }));
    const atHome = await w.place(user, buy('BTC_USDT.TRC20', 100, 1, { clientOrderId: 'one' }));
    expect([elsewhere.status, elsewhere.body.id, elsewhere.body.currencyPairCode]).toEqual([200, first.body.id, 'BTC_USDT']);
    expect([atHome.status, atHome.body.id]).toEqual([200, first.body.id]);

    const together = await Promise.all([
      w.place(user, buy('BTC_USDT', 100, 1, { clientOrderId: 'two' })),
      w.place(user, buy('ETH_USDT', 100, 1, { clientOrderId: 'two' })),
      w.place(user, buy('BTC_USDT.TRC20', 100, 1, { clientOrderId: 'two' })),
    ]);
    const ids = new Set(together.filter((r) => r.status === 200).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    const list = await request(w.app).get('/api/orders').query({ pageSize: 50 }).set('Authorization', bearer(user));
    expect(list.body.items.filter((o: { clientOrderId: string }) => o.clientOrderId === 'two')).toHaveLength(1);
    expect(list.body.totalCount).toBe(2);
    expectReconciled(await w.reconcile());
  });
});

describe('merged reads', () => {
  it('lists orders of every shard newest first with exact paging', async () => {
    const user = await quotedUser(1, 'lister');
    const placed: number[] = [];
    for (const pair of ['BTC_USDT', 'ETH_USDT', 'BTC_USDT.TRC20', 'ETH_USDT', 'BTC_USDT', 'BTC_USDT.TRC20', 'ETH_USDT']) {
      const r = await w.place(user, buy(pair, 10, 1));
      expect(r.status).toBe(200);
      placed.push(r.body.id);
      await new Promise((res) => setTimeout(res, 3)); // distinct creation times
    }
    expect(new Set(placed.map((id) => shardOfId(String(id)))).size).toBe(3);
    const seen: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await request(w.app).get('/api/orders').query({ page, pageSize: 3 }).set('Authorization', bearer(user));
      expect([r.status, r.body.totalCount, r.body.totalPages]).toEqual([200, 7, 3]);
      seen.push(...r.body.items.map((o: { id: number }) => o.id));
    }
    expect(seen).toEqual([...placed].reverse());
  });
});
