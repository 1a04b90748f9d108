import BigNumber from 'bignumber.js';
import request from 'supertest';
import { parseEntry } from '../../../src/platform/market-event';
import type { Transfer } from '../../../src/wallet';
import { admin } from '../futures/helpers';
import { httpHelpers, userWithHome } from '../shards/shard-fixture';
import { copyBed, type CopyBed } from './helpers';

/**
 * Copy trading across homes (docs/copy-trading.md, "Payments"): three engine shards, the master's
 * owner at home on shard 1, the follower on shard 2, futures and copy on the copy shard. Fees and
 * profit share leave the copy shard as payment transfers credited at the owner's home, a closed
 * master's balance as a transfer home; after every test the money is conserved over all shards and
 * the reconciler is exact with nothing in transit. Runs on one Redis and on the cluster run.
 */
let b: CopyBed;
let owner: string;
let follower: string;
let m: number;
/** Every transfer the copy service asked the relay to carry, in order. */
let carried: string[];
beforeEach(async () => {
  b = await copyBed({ ENGINE_SHARDS: '3', ESCROW_IDLE_SECONDS: '3600' });
  owner = await userWithHome(b.ctx, 1, 'owner');
  follower = await userWithHome(b.ctx, 2, 'follower');
  await b.liquidity(100);
  m = await b.master(owner, { commissionRate: 36.5, slaveIncomePercentage: 20 });
  carried = [];
  const relay = b.ctx.funds.relay!;
  const deliver = relay.deliver.bind(relay);
  relay.deliver = async (t) => {
    carried.push(t.id);
    return deliver(t);
  };
});
afterEach(async () => b.ctx.cleanup());

const S = '/api/copy-slave';
const floor8 = (x: BigNumber.Value) => new BigNumber(x).decimalPlaces(8, BigNumber.ROUND_FLOOR).toNumber();
const copyShard = () => b.ctx.keys.shard;
const usdt = async (shard: number, user: string) =>
  new BigNumber((await b.ctx.redis.hget(b.ctx.shards.keys(shard).walletAvailable(user), 'USDT')) ?? 0).shiftedBy(-8).toNumber();
const finishBody = (slave: number, closeOrders = true) => ({ copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, closeOrders });

async function subscription(id: number | string) {
  return (await b.ctx.copy.slaves.subscriptionsTo(follower, (await b.get(follower, S)).body[0].id)).find((s) => s.id === String(id))!;
}

/** A transfer's record where it was sent (kept 7 days once done). */
async function record(id: string, from = copyShard()): Promise<Record<string, string>> {
  return b.ctx.redis.hgetall(b.ctx.shards.keys(from).transfer(id));
}

/** The records of the transfers the relay carried from the copy shard to the owner: payments, and a closed master's balance. */
async function sentToOwner() {
  const ids = carried.filter((x, i) => carried.indexOf(x) === i);
  const recs: Record<string, string>[] = await Promise.all(ids.map(async (id) => ({ id, ...(await record(id)) })));
  return recs.filter((r) => r.user === owner && r.from === String(copyShard()));
}

/** The follower copies with 1,000 of margin; the master buys 10 at market, the follower mirrors it; the bid rises to 130. */
async function followerInProfit() {
  const slave = await b.slave(follower, 2_000);
  const sub = await b.subscribe(follower, m, slave, 1_000);
  const mOrder = await b.order(owner, m, true, null, 10);
  await b.pump();
  const ann = await b.fundedAccount('ann', 1_000_000, 10);
  await b.order('ann', ann, true, 130, 100);
  return { slave, sub: await subscription(sub.id), mOrder };
}

/** The subscription's positions close with the master's: realized profit. */
async function realize(mOrder: number) {
  expect((await b.put(owner, '/api/futures/trade/close', { orderId: mOrder, isMarket: true })).status).toBe(200);
  await b.pump();
}

/**
 * Conserved over every shard, the reconciler exact with nothing in transit and every outbox empty.
 * The only negatives the reconciler may name are pnl pools: the followers' and the master's profit
 * was paid from a market shard's pool while the counterparties' positions are still open (it
 * carries their claim, docs/futures.md), so `holds` is read as difference 0 with no other negative.
 */
async function atRest() {
  await b.usdtTotal();
  for (const row of await httpHelpers(b.app).reconcile()) {
    expect([row.currencyCode, row.difference, row.terms.inTransit]).toEqual([row.currencyCode, 0, 0]);
    const pools = b.ctx.shards.all().map((k) => `${k.futuresPnlPool()} ${row.currencyCode}`);
    expect(row.negative.filter((k) => !pools.includes(k))).toEqual([]);
  }
  for (let shard = 0; shard < 3; shard++) expect(await b.ctx.funds.ledger.outbox(shard)).toEqual([]);
}

describe('copy trading with the master owner and the follower at home on other shards', () => {
  it('mirrors, pays the fee and the profit share to the owner\'s home by payment transfers, and finishes', async () => {
    expect(new Set([copyShard(), 1, 2]).size).toBe(3);
    const { slave, sub, mOrder } = await followerInProfit();
    expect((await b.orders(follower)).length).toBeGreaterThan(0); // mirrored
    await realize(mOrder);
    const home = await usdt(1, owner);
    carried = [];
    const paid = await b.ctx.copy.settlement.settle(sub);
    expect(new BigNumber(paid.share).toNumber()).toBeGreaterThan(0);
    expect(carried).toHaveLength(1);
    const [id] = carried;
    const amount = new BigNumber(paid.fee).plus(paid.share).shiftedBy(-8).toNumber();
    // one payment, debited from the subscription on the copy shard, credited at the owner's home
    expect(await record(id)).toMatchObject({
      kind: 'payment', payer: follower, user: owner, from: String(copyShard()), to: '1', state: 'done',
      fee: paid.fee, share: paid.share,
    });
    expect(await b.ctx.redis.get(b.ctx.shards.keys(1).transferCredit(id))).toBe(new BigNumber(paid.fee).plus(paid.share).toFixed(0));
    expect(await usdt(1, owner)).toBeCloseTo(home + amount, 8);
    expect(await usdt(copyShard(), owner)).toBe(0); // nothing was paid into escrow on the copy shard
    const ledger = await b.ctx.copy.settlement.settle(sub);
    expect(ledger.share).toBe('0');
    await atRest();

    const fin = await b.post(follower, `${S}/finishMasterCopy`, finishBody(slave));
    expect(fin.status).toBe(200);
    expect(fin.body.isActive).toBe(false);
    const shared = await b.ctx.copy.settlement.settle(await subscription(sub.id));
    expect(shared).toEqual({ fee: '0', share: '0' });
    // the fee accrued up to the finish is paid too; every payment's amount reached the owner's home once
    const total = (await sentToOwner()).reduce((t, r) => t.plus(r.amount), new BigNumber(0));
    const l = await b.ctx.redis.hgetall(b.ctx.keys.copyLedger(sub.id));
    expect(total.toFixed(0)).toBe(new BigNumber(l.commission).plus(l.shared).toFixed(0));
    expect(await usdt(1, owner)).toBeCloseTo(home + total.shiftedBy(-8).toNumber(), 8);
    expect(fin.body.commission).toBeCloseTo(total.shiftedBy(-8).toNumber(), 8);
    await atRest();
  });

  it('starts one subscription of many identical starts sent at once', async () => {
    const slave = await b.slave(follower, 2_000);
    const answers = await Promise.all(Array.from({ length: 8 }, () => b.start(follower, m, slave, 500)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.error.code)).toEqual(Array(7).fill('SUBSCRIPTION_EXISTS'));
    expect((await b.account(follower, slave)).available).toBe(1_500);
    expect((await b.get(follower, `${S}/following`)).body.items).toHaveLength(1);
    await atRest();
  });

  it('a finish racing a master close pays the share once and returns everything to its owners\' homes', async () => {
    const { slave, sub, mOrder } = await followerInProfit();
    await realize(mOrder);
    const [fin, del] = await Promise.all([
      b.post(follower, `${S}/finishMasterCopy`, finishBody(slave)),
      b.del(owner, `/api/copy-master/${m}`),
    ]);
    expect(del.status).toBe(200);
    expect([200, 409]).toContain(fin.status);
    await b.ctx.copy.settlement.resume();
    const done = await subscription(sub.id);
    expect(done.state).toBe('Finished');
    const l = await b.ctx.redis.hgetall(b.ctx.keys.copyLedger(sub.id));
    expect(new BigNumber(l.shared).toNumber()).toBeGreaterThan(0);
    expect(l.owedShare).toBe('0');
    // the owner holds, at home and nowhere else, the master's balance (sent home) and every payment
    const recs = await sentToOwner();
    const paid = recs.filter((r) => r.kind === 'payment').reduce((s, r) => s.plus(r.amount), new BigNumber(0));
    expect(paid.toFixed(0)).toBe(new BigNumber(l.commission).plus(l.shared).toFixed(0));
    const back = recs.filter((r) => r.kind === 'move').reduce((s, r) => s.plus(r.amount), new BigNumber(0));
    expect(back.toNumber()).toBeGreaterThan(0);
    expect(await usdt(copyShard(), owner)).toBe(0);
    expect(await usdt(1, owner)).toBeCloseTo(paid.plus(back).shiftedBy(-8).toNumber(), 8);
    expect((await b.account(follower, slave)).available).toBeCloseTo(
      new BigNumber(done.settledEquity).shiftedBy(-8).plus(1_000).toNumber(), 8,
    );
    await atRest();
  });
});

describe('faults in a payment\'s delivery', () => {
  it('the relay killed between the debit and the credit: in transit until the worker\'s drain credits it once', async () => {
    const { sub, mOrder } = await followerInProfit();
    await realize(mOrder);
    const ledger = b.ctx.funds.ledger;
    const credit = ledger.creditAll.bind(ledger);
    ledger.creditAll = async () => {
      throw new Error('relay killed after marking the debit durable');
    };
    const home = await usdt(1, owner);
    const paid = await b.ctx.copy.settlement.settle(sub);
    const amount = new BigNumber(paid.fee).plus(paid.share);
    expect(amount.toNumber()).toBeGreaterThan(0);
    const [sent] = await ledger.outbox(copyShard());
    expect(sent).toMatchObject({ kind: 'payment', payer: follower, user: owner, to: 1, amount: amount.toFixed(0) });
    expect((await record(sent.id)).state).toBe('durable');
    // in transit: the reconciler holds with it counted, the owner's merged balance shows it once
    const rows = await httpHelpers(b.app).reconcile();
    expect(rows.find((r) => r.currencyCode === 'USDT')!.difference).toBe(0);
    expect(rows.find((r) => r.currencyCode === 'USDT')!.terms.inTransit).toBeCloseTo(amount.shiftedBy(-8).toNumber(), 8);
    expect(await b.walletUsdt(owner)).toBeCloseTo(home + amount.shiftedBy(-8).toNumber(), 8);
    expect(await usdt(1, owner)).toBe(home);

    ledger.creditAll = credit;
    expect(await b.ctx.funds.relay!.drain(copyShard(), 0)).toBe(1);
    expect(await usdt(1, owner)).toBeCloseTo(home + amount.shiftedBy(-8).toNumber(), 8);
    expect(await b.ctx.funds.relay!.drain(copyShard(), 0)).toBe(0);
    await atRest();
  });

  it('every outbox entry delivered twice, at once and again later, credits each payment once', async () => {
    const { slave, mOrder } = await followerInProfit();
    await realize(mOrder);
    const relay = b.ctx.funds.relay!;
    const deliver = relay.deliver;
    relay.deliver = async () => undefined; // nobody delivers during the finish
    const home = await usdt(1, owner);
    expect((await b.post(follower, `${S}/finishMasterCopy`, finishBody(slave))).status).toBe(200);
    expect((await b.del(owner, `/api/copy-master/${m}`)).status).toBe(200);
    const pending: (Transfer & { sentMs: number })[] = await b.ctx.funds.ledger.outbox(copyShard());
    expect(pending.map((t) => t.kind).sort()).toEqual(['move', 'payment']);
    relay.deliver = deliver;
    await Promise.all(pending.flatMap((t) => [relay.deliver(t), relay.deliver(t)]));
    for (const t of pending) await relay.deliver(t);
    expect(await relay.drain(copyShard(), 0)).toBe(0);
    const moved = pending.reduce((s, t) => s.plus(t.amount as string), new BigNumber(0));
    expect(await usdt(1, owner)).toBeCloseTo(home + moved.shiftedBy(-8).toNumber(), 8);
    for (const t of pending) expect(await b.ctx.redis.get(b.ctx.shards.keys(1).transferCredit(t.id))).toBe(t.amount);
    expect(floor8(moved.shiftedBy(-8))).toBeGreaterThan(0);
    await atRest();
  });
});

describe('a master trading a futures market on another shard than the accounts\' registry', () => {
  const SOL = 'SOL_USDT'; // shard 1: SOL_USDT's book, positions and the accounts' margin for it live there
  let lastId = '0-0';

  /** Hands every new SOL_USDT stream entry (on its own shard) to the mirror, as the dispatcher would. */
  async function pumpSol() {
    const entries = await b.ctx.redis.xrange(b.ctx.shards.keys(1).events('futures', SOL), `(${lastId}`, '+');
    for (const [id, fields] of entries) {
      await b.ctx.copy.mirror.handleEntry(parseEntry(id, fields));
      lastId = id;
    }
  }

  const sol = (user: string, acct: number, isLong: boolean, price: number | null, amount: number) =>
    b.create(user, { isMarket: price === null, isLong, price: price ?? 0, amount, currencyPairCode: SOL, futuresAccountId: acct });

  const marginOn = async (shard: number, acct: string | number) => {
    const [balance, locked] = await b.ctx.redis.hmget(b.ctx.shards.keys(shard).futuresAccount(acct), 'balance', 'locked');
    return { balance: Number(balance ?? 0), locked: Number(locked ?? 0) };
  };

  it('mirrors there, and the finish brings the subscription\'s margin back, settles the whole profit and returns it all', async () => {
    lastId = '0-0';
    expect((await request(b.app).post('/api/admin/currencies').set('Authorization', admin).send({ code: 'SOL', name: 'SOL', decimals: 8 })).status).toBe(200);
    const pair = await request(b.app).post('/api/admin/pairs').set('Authorization', admin).send({
      kind: 'futures', baseCurrencyCode: 'SOL', quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 3, minBaseAmount: 0.001,
      minQuoteAmount: 5, makerFee: 0.0002, takerFee: 0.0005, contractValue: 1, lotSize: 0.001, maxLeverage: 50,
      maintenanceMarginRate: 0.01, engineShard: 1,
    });
    expect([pair.status, pair.body.engineShard]).toEqual([200, 1]);
    const mm = await b.fundedAccount('solmm', 1_000_000, 10);
    expect((await sol('solmm', mm, true, 99, 50)).status).toBe(200);
    expect((await sol('solmm', mm, false, 101, 50)).status).toBe(200);
    const slave = await b.slave(follower, 2_000);
    const sub = await subscription((await b.subscribe(follower, m, slave, 1_000)).id);

    const open = await sol(owner, m, true, null, 10);
    expect(open.status).toBe(200);
    await pumpSol();
    // the mirrored position's margin was topped up on shard 1 from the subscription account's registry
    expect((await marginOn(1, sub.acct)).locked).toBeGreaterThan(0);
    const ann = await b.fundedAccount('solann', 1_000_000, 10);
    expect((await sol('solann', ann, true, 130, 100)).status).toBe(200);
    expect((await b.put(owner, '/api/futures/trade/close', { orderId: open.body.id, isMarket: true })).status).toBe(200);
    await pumpSol();
    const there = await marginOn(1, sub.acct);
    expect([there.locked, there.balance > 0]).toEqual([0, true]); // closed at a profit: the proceeds sit on shard 1

    carried = [];
    const fin = await b.post(follower, `${S}/finishMasterCopy`, finishBody(slave));
    expect(fin.status).toBe(200);
    expect(await marginOn(1, sub.acct)).toEqual({ balance: 0, locked: 0 });
    const done = await subscription(sub.id);
    const l = await b.ctx.redis.hgetall(b.ctx.keys.copyLedger(sub.id));
    // the whole realized profit was seen: 20 % of it shared, paid to the owner's home
    // realized profit R = cash − netIn + what was paid to the master (fee and share)
    const realized = new BigNumber(done.settledEquity).minus(1_000e8).plus(l.commission).plus(l.shared);
    expect(realized.toNumber()).toBeGreaterThan(0);
    expect(l.shared).toBe(realized.times(0.2).integerValue(BigNumber.ROUND_FLOOR).toFixed(0));
    const paid = (await sentToOwner()).filter((r) => r.kind === 'payment').reduce((t, r) => t.plus(r.amount), new BigNumber(0));
    expect(paid.toFixed(0)).toBe(new BigNumber(l.commission).plus(l.shared).toFixed(0));
    expect((await b.account(follower, slave)).available).toBeCloseTo(new BigNumber(done.settledEquity).shiftedBy(-8).plus(1_000).toNumber(), 8);
    await atRest();
  });
});
