import request from 'supertest';
import { shardOfId } from '../../../src/domain/shard-ids';
import { bearer } from '../../support/harness';
import { expectDrainedOnce, expectReconciled, httpHelpers, userWithHome } from '../shards/shard-fixture';
import { admin, futuresBed } from './helpers';

/**
 * The futures account registry at the user's home (ENGINE_SHARDS=3; on one Redis, and on the
 * 3-master cluster of the cluster run): an account is registered on its owner's home shard, its id
 * names that shard, and the wallet ⇄ account transfers run there as one script (docs/futures.md,
 * "Futures on engine shards"). SOL_USDT runs on shard 1.
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
let h: ReturnType<typeof httpHelpers>;
const SOL = 'SOL_USDT';
const minor = (n: number) => BigInt(Math.round(n * 1e8));

async function addSol(bed: Bed): Promise<void> {
  await request(bed.app).post('/api/admin/currencies').set('Authorization', admin).send({ code: 'SOL', name: 'SOL', decimals: 8 });
  const pair = await request(bed.app).post('/api/admin/pairs').set('Authorization', admin).send({
    kind: 'futures', baseCurrencyCode: 'SOL', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 3, minBaseAmount: 0.001,
    minQuoteAmount: 5, makerFee: 0.0002, takerFee: 0.0005, contractValue: 1, lotSize: 0.001, maxLeverage: 50,
    maintenanceMarginRate: 0.01, engineShard: 1,
  });
  expect([pair.status, pair.body.engineShard]).toEqual([200, 1]);
}

beforeEach(async () => {
  b = await futuresBed({ ENGINE_SHARDS: '3', ESCROW_HEADROOM_PERCENT: '10', ESCROW_IDLE_SECONDS: '3600' });
  h = httpHelpers(b.app);
  await addSol(b);
});
afterEach(async () => b.ctx.cleanup());

const transfer = (user: string, from: number | null, to: number | null, amount: number, key?: string) => {
  const r = request(b.app).post('/api/wallet/transfer').set('Authorization', bearer(user));
  if (key) r.set('Idempotency-Key', key);
  return r.send({ fromFuturesAccountId: from, toFuturesAccountId: to, currencyCode: 'USDT', amount });
};
const openAccount = async (user: string, name = `${user}-acct`) => {
  const r = await request(b.app).post('/api/futures/accounts').set('Authorization', bearer(user)).send({ name, currencyCode: 'USDT', leverage: 10 });
  expect(r.status).toBe(200);
  return r.body.id as number;
};
const solOrder = (user: string, acct: number, price: number, amount: number) =>
  b.create(user, { isMarket: false, isLong: true, price, amount, currencyPairCode: SOL, futuresAccountId: acct });

/** The account's free and locked margin on `shard`, minor units. */
async function marginOn(shard: number, acct: number): Promise<{ balance: bigint; locked: bigint }> {
  const [balance, locked] = await b.ctx.redis.hmget(b.ctx.shards.keys(shard).futuresAccount(acct), 'balance', 'locked');
  return { balance: BigInt(balance ?? '0'), locked: BigInt(locked ?? '0') };
}
async function marginEverywhere(acct: number): Promise<bigint> {
  let sum = 0n;
  for (let shard = 0; shard < 3; shard++) {
    const m = await marginOn(shard, acct);
    sum += m.balance + m.locked;
  }
  return sum;
}
/** Entries in every shard's transfer outbox and transfers ever sent (records), summed. */
async function transfersSent(): Promise<number> {
  let n = 0;
  for (let shard = 0; shard < 3; shard++) n += await b.ctx.redis.xlen(b.ctx.shards.keys(shard).outbox());
  return n;
}
async function expectAtRest(): Promise<void> {
  expectReconciled(await h.reconcile());
  await b.usdtTotal();
}

describe('the futures account registry at the user\'s home', () => {
  it('registers each account at its owner\'s home under an id naming it, and moves wallet money in and out there in one script', async () => {
    const ids = new Set<number>();
    for (const home of [0, 1, 2]) {
      const user = await userWithHome(b.ctx, home, `reg${home}-`);
      await h.deposit(user, 'USDT', 100);
      const acct = await openAccount(user);
      ids.add(acct);
      expect([home, shardOfId(String(acct))]).toEqual([home, home]);
      const k = b.ctx.shards.keys(home);
      expect(await b.ctx.redis.hget(k.futuresAccount(acct), 'user')).toBe(user);
      expect(await b.ctx.redis.smembers(k.userFuturesAccounts(user))).toEqual([String(acct)]);
      for (const other of [0, 1, 2].filter((s) => s !== home)) {
        expect([other, await b.ctx.redis.exists(b.ctx.shards.keys(other).futuresAccount(acct))]).toEqual([other, 0]);
        if (home !== 0) expect(await b.ctx.redis.exists(b.ctx.shards.keys(other).userFuturesAccounts(user))).toBe(0);
      }
      // the wallet is at home and so is the account: nothing crosses a shard
      expect((await transfer(user, null, acct, 60)).status).toBe(200);
      expect((await transfer(user, acct, null, 15)).status).toBe(200);
      expect(await marginOn(home, acct)).toEqual({ balance: minor(45), locked: 0n });
      expect(await b.ctx.redis.hget(k.walletAvailable(user), 'USDT')).toBe(String(minor(55)));
      expect(await transfersSent()).toBe(0);
      const listed = (await b.get(user, '/api/futures/accounts')).body;
      expect(listed.map((a: { id: number; available: number }) => [a.id, a.available])).toEqual([[acct, 45]]);
    }
    expect(ids.size).toBe(3);
    await expectAtRest();
  });

  it('gives accounts opened at once on every home distinct ids', async () => {
    const users = [await userWithHome(b.ctx, 0, 'many0-'), await userWithHome(b.ctx, 1, 'many1-'), await userWithHome(b.ctx, 2, 'many2-')];
    const made = await Promise.all(users.flatMap((u) => Array.from({ length: 6 }, (_, i) => openAccount(u, `${u}-${i}`))));
    expect(new Set(made).size).toBe(made.length);
    for (const [i, u] of users.entries()) {
      const listed = (await b.get(u, '/api/futures/accounts')).body.map((a: { id: number }) => a.id);
      expect(listed).toHaveLength(6);
      for (const id of listed) expect([id, shardOfId(String(id))]).toEqual([id, i]);
    }
  });

  it('moves one transfer sent many times at once as often as the money allows, and conflicting transfers never make or lose money', async () => {
    const user = await userWithHome(b.ctx, 2, 'race');
    await h.deposit(user, 'USDT', 100);
    const acct = await openAccount(user);
    // the same transfer eight times at once: 100 covers three of 30
    const same = await Promise.all(Array.from({ length: 8 }, () => transfer(user, null, acct, 30)));
    expect(same.filter((r) => r.status === 200)).toHaveLength(3);
    for (const r of same.filter((x) => x.status !== 200)) expect([r.status, r.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(await marginEverywhere(acct)).toBe(minor(90));
    // conflicting: orders on shard 1 that need top-ups from home, transfers out and back in, all at once
    const mixed = await Promise.all([
      solOrder(user, acct, 100, 1), transfer(user, acct, null, 40), transfer(user, null, acct, 10),
      solOrder(user, acct, 100, 1), transfer(user, acct, null, 40), transfer(user, acct, null, 40),
    ]);
    for (const r of mixed) expect([200, 422, 503]).toContain(r.status);
    expect(mixed.some((r) => r.status === 200)).toBe(true);
    const wallet = minor((await h.balances(user)).USDT.available);
    expect(wallet + (await marginEverywhere(acct))).toBe(minor(100));
    expect((await marginOn(1, acct)).balance >= 0n && (await marginOn(2, acct)).balance >= 0n).toBe(true);
    await expectAtRest();
  });

  it('moves a transfer sent many times at once under one Idempotency-Key once', async () => {
    const user = await userWithHome(b.ctx, 1, 'keyed');
    await h.deposit(user, 'USDT', 100);
    const acct = await openAccount(user);
    const sent = await Promise.all(Array.from({ length: 6 }, () => transfer(user, null, acct, 25, 'in-once')));
    expect(sent.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of sent) expect([200, 409]).toContain(r.status);
    expect(await marginEverywhere(acct)).toBe(minor(25));
    expect((await h.balances(user)).USDT.available).toBe(75);
    await expectAtRest();
  });
});

describe('margin coming home for a transfer out, under faults', () => {
  /** An account at home 2 with margin topped up on shard 1 by an order, the order closed: its free margin sits on both. */
  async function spread(prefix: string): Promise<{ user: string; acct: number }> {
    const user = await userWithHome(b.ctx, 2, prefix);
    await h.deposit(user, 'USDT', 100);
    const acct = await openAccount(user);
    expect((await transfer(user, null, acct, 100)).status).toBe(200);
    const placed = await solOrder(user, acct, 100, 1);
    expect(placed.status).toBe(200);
    expect((await b.put(user, '/api/futures/trade/close', { orderId: placed.body.id, isMarket: true })).status).toBe(200);
    expect((await marginOn(1, acct)).balance).toBeGreaterThan(0n);
    return { user, acct };
  }

  it('a relay killed between the debit on shard 1 and the credit at home: in transit, counted once, drained once, the transfer then goes through', async () => {
    const { user, acct } = await spread('killed');
    const relay = b.ctx.funds.relay as NonNullable<typeof b.ctx.funds.relay>;
    const deliver = jest.spyOn(relay, 'deliverSent').mockRejectedValueOnce(new Error('relay process killed'));
    const died = await transfer(user, acct, null, 100);
    expect(died.status).toBe(500);
    deliver.mockRestore();
    // shard 1's free margin left, not yet at home: the account still reads 100, the reconciler sees it in transit
    expect((await marginOn(1, acct)).balance).toBe(0n);
    expect(minor((await b.account(user, acct)).available)).toBe(minor(100));
    await expectDrainedOnce(h.reconcile, relay, 1);
    expect(await marginOn(2, acct)).toEqual({ balance: minor(100), locked: 0n });
    await expectAtRest();
    expect((await transfer(user, acct, null, 100)).status).toBe(200);
    expect((await h.balances(user)).USDT.available).toBe(100);
    expect(await marginEverywhere(acct)).toBe(0n);
    await expectAtRest();
  });

  it('a credit at home whose reply is lost is delivered again without crediting twice', async () => {
    const { user, acct } = await spread('lostreply');
    const ledger = b.ctx.funds.ledger;
    const credit = ledger.creditAll.bind(ledger);
    const spy = jest.spyOn(ledger, 'creditAll').mockImplementationOnce(async (...args) => {
      await credit(...args);
      throw Object.assign(new Error('Connection is closed.'), { name: 'Error' });
    });
    const first = await transfer(user, acct, null, 100);
    expect(first.status).toBeGreaterThanOrEqual(500);
    spy.mockRestore();
    const relay = b.ctx.funds.relay as NonNullable<typeof b.ctx.funds.relay>;
    expect(await relay.drain(1, 0)).toBe(1);
    expect(await marginOn(2, acct)).toEqual({ balance: minor(100), locked: 0n });
    await expectAtRest();
    // a retry of the transfer goes through once
    expect((await transfer(user, acct, null, 100)).status).toBe(200);
    expect((await h.balances(user)).USDT.available).toBe(100);
    await expectAtRest();
  });
});

describe('growing ENGINE_SHARDS with futures accounts on live data', () => {
  it('keeps accounts registered on shard 0 with one shard working when ENGINE_SHARDS goes from 1 to 3', async () => {
    await b.ctx.cleanup();
    const prefix = `fgrow${Date.now()}`;
    const one = await futuresBed({ ENGINE_SHARDS: '1', KEY_PREFIX: prefix });
    const acct = await one.fundedAccount('veteran', 1000, 10);
    const resting = await one.order('veteran', acct, true, 1000, 0.01);
    const before = (await one.get('veteran', '/api/futures/accounts')).body;
    await one.ctx.close();

    b = await futuresBed({ ENGINE_SHARDS: '3', KEY_PREFIX: prefix, ESCROW_IDLE_SECONDS: '3600' });
    h = httpHelpers(b.app);
    // the account keeps its id, registry (shard 0, the veteran's home) and money; its order is found
    expect([shardOfId(String(acct)), await b.ctx.funds.homes.of('veteran')]).toEqual([0, 0]);
    expect((await b.get('veteran', '/api/futures/accounts')).body).toEqual(before);
    expect((await b.record('veteran', resting)).futuresOrderStatus).toBe(10);
    // it trades on a market of shard 1 (margin topped up from shard 0) and pays back into the wallet
    await addSol(b);
    const far = await solOrder('veteran', acct, 100, 1);
    expect([far.status, shardOfId(String(far.body.id))]).toEqual([200, 1]);
    expect((await marginOn(1, acct)).locked).toBeGreaterThan(0n);
    expect((await transfer('veteran', acct, null, 100)).status).toBe(200);
    // a new account of the veteran's is registered at home, shard 0; a new user's at theirs
    const second = await openAccount('veteran', 'second');
    expect([shardOfId(String(second)), second === acct]).toEqual([0, false]);
    const fresh = await userWithHome(b.ctx, 2, 'fresh');
    const theirs = await openAccount(fresh);
    expect(shardOfId(String(theirs))).toBe(2);
    const listed = (await b.get('veteran', '/api/futures/accounts')).body.map((a: { id: number }) => a.id);
    expect(listed.sort()).toEqual([acct, second].sort());
    expectReconciled(await h.reconcile());
  });
});
