import BigNumber from 'bignumber.js';
import request from 'supertest';
import { AppError } from '../../../src/domain/errors';
import { shardOfId } from '../../../src/domain/shard-ids';
import { parseEntry } from '../../../src/platform/market-event';
import type { Transfer } from '../../../src/wallet';
import { admin } from '../futures/helpers';
import { httpHelpers, userWithHome } from '../shards/shard-fixture';
import { copyBed, type CopyBed } from './helpers';
import { rankMember } from '../../../src/platform/redis/ranking';

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
/** The master's side (its record, account and list of subscriptions) stays on shard 0. */
const copyShard = () => b.ctx.keys.shard;
/** The follower's home: the subscription's records and money, where its payments leave from. */
const FOLLOWER_HOME = 2;
const homeKeys = (subId: string | number) => b.ctx.shards.keys(shardOfId(String(subId)));
const usdt = async (shard: number, user: string) =>
  new BigNumber((await b.ctx.redis.hget(b.ctx.shards.keys(shard).walletAvailable(user), 'USDT')) ?? 0).shiftedBy(-8).toNumber();
const finishBody = (slave: number, closeOrders = true) => ({ copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, closeOrders });

/** A slave made before homes: its account registered on shard 0 (its record too), funded from the wallet. */
async function oldSlave(user: string, fund: number): Promise<number> {
  const { CopyStore } = await import('../../../src/copy/copy-store');
  const acct = await b.ctx.futures.accounts.create(user, { name: 'old', currencyCode: 'USDT', leverage: 10 }, 'own', 0);
  expect(shardOfId(String(acct.id))).toBe(0);
  await new CopyStore(b.ctx.redis, b.ctx.keys, b.ctx.shards).saveSlave({
    id: String(acct.id), user, name: 'old', leverage: '10', currency: 'USDT', cts: String(Date.now()),
  });
  await b.deposit(user, fund);
  const t = await b.post(user, '/api/wallet/transfer', { fromFuturesAccountId: null, toFuturesAccountId: acct.id, currencyCode: 'USDT', amount: fund });
  expect(t.status).toBe(200);
  return acct.id;
}

async function subscription(id: number | string) {
  return (await b.ctx.copy.slaves.subscriptionsTo(follower, (await b.get(follower, S)).body[0].id)).find((s) => s.id === String(id))!;
}

/** A transfer's record where it was sent (kept 7 days once done), looked up on every shard. */
async function record(id: string): Promise<Record<string, string>> {
  for (const k of b.ctx.shards.all()) {
    const h = await b.ctx.redis.hgetall(k.transfer(id));
    if (h.user) return h;
  }
  return {};
}

/**
 * The records of the transfers the relay carried to the owner: payments from the follower's home,
 * and a closed master's balance from shard 0.
 */
async function sentToOwner() {
  const ids = carried.filter((x, i) => carried.indexOf(x) === i);
  const recs: Record<string, string>[] = await Promise.all(ids.map(async (id) => ({ id, ...(await record(id)) })));
  return recs.filter((r) => r.user === owner && r.from === String(r.kind === 'payment' ? FOLLOWER_HOME : copyShard()));
}

/** The follower copies with 1,000 of margin; the master buys 10 at market, the follower mirrors it; the bid rises to 130. */
async function followerInProfit(makeSlave: (user: string, fund: number) => Promise<number> = b.slave) {
  const slave = await makeSlave(follower, 2_000);
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
    // one payment, debited from the subscription at the follower's home, credited at the owner's home
    expect(await record(id)).toMatchObject({
      kind: 'payment', payer: follower, user: owner, from: String(FOLLOWER_HOME), to: '1', state: 'done',
      fee: paid.fee, share: paid.share,
    });
    expect(await b.ctx.redis.get(b.ctx.shards.keys(1).transferCredit(id))).toBe(new BigNumber(paid.fee).plus(paid.share).toFixed(0));
    expect(await usdt(1, owner)).toBeCloseTo(home + amount, 8);
    expect(await usdt(copyShard(), owner)).toBe(0); // nothing was paid into escrow on the copy shard
    expect(await usdt(FOLLOWER_HOME, owner)).toBe(0); // nor at the follower's home
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
    const l = await b.ctx.redis.hgetall(homeKeys(sub.id).copyLedger(sub.id));
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
    const l = await b.ctx.redis.hgetall(homeKeys(sub.id).copyLedger(sub.id));
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
    // the proceeds on the market's shard come home first (what the settlement does before its step)
    await b.ctx.funds.escrow!.sweepHome(follower, 'USDT', [], sub.acct);
    const ledger = b.ctx.funds.ledger;
    const credit = ledger.creditAll.bind(ledger);
    ledger.creditAll = async () => {
      throw new Error('relay killed after marking the debit durable');
    };
    const home = await usdt(1, owner);
    const paid = await b.ctx.copy.settlement.settle(sub);
    const amount = new BigNumber(paid.fee).plus(paid.share);
    expect(amount.toNumber()).toBeGreaterThan(0);
    const [sent] = await ledger.outbox(FOLLOWER_HOME);
    expect(sent).toMatchObject({ kind: 'payment', payer: follower, user: owner, to: 1, amount: amount.toFixed(0) });
    expect((await record(sent.id)).state).toBe('durable');
    // in transit: the reconciler holds with it counted, the owner's merged balance shows it once
    const rows = await httpHelpers(b.app).reconcile();
    expect(rows.find((r) => r.currencyCode === 'USDT')!.difference).toBe(0);
    expect(rows.find((r) => r.currencyCode === 'USDT')!.terms.inTransit).toBeCloseTo(amount.shiftedBy(-8).toNumber(), 8);
    expect(await b.walletUsdt(owner)).toBeCloseTo(home + amount.shiftedBy(-8).toNumber(), 8);
    expect(await usdt(1, owner)).toBe(home);

    ledger.creditAll = credit;
    expect(await b.ctx.funds.relay!.drain(FOLLOWER_HOME, 0)).toBe(1);
    expect(await usdt(1, owner)).toBeCloseTo(home + amount.shiftedBy(-8).toNumber(), 8);
    expect(await b.ctx.funds.relay!.drain(FOLLOWER_HOME, 0)).toBe(0);
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
    // the payment leaves the follower's home, the closed master's balance shard 0
    const pending: (Transfer & { sentMs: number })[] = [
      ...(await b.ctx.funds.ledger.outbox(copyShard())), ...(await b.ctx.funds.ledger.outbox(FOLLOWER_HOME)),
    ];
    expect(pending.map((t) => `${t.kind}@${t.from}`).sort()).toEqual([`move@${copyShard()}`, `payment@${FOLLOWER_HOME}`]);
    relay.deliver = deliver;
    await Promise.all(pending.flatMap((t) => [relay.deliver(t), relay.deliver(t)]));
    for (const t of pending) await relay.deliver(t);
    expect(await relay.drain(copyShard(), 0)).toBe(0);
    expect(await relay.drain(FOLLOWER_HOME, 0)).toBe(0);
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
    const l = await b.ctx.redis.hgetall(homeKeys(sub.id).copyLedger(sub.id));
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

describe('the follower\'s side at the follower\'s home (docs/architecture.md, shard map)', () => {
  const update = (slave: number, margin: number) =>
    b.post(follower, `${S}/updateMasterCopySettings`, { copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, margin });
  const moneyOf = async (acct: string | number) => {
    let sum = new BigNumber(0);
    for (const k of b.ctx.shards.all()) {
      const [balance, locked] = await b.ctx.redis.hmget(k.futuresAccount(acct), 'balance', 'locked');
      sum = sum.plus(balance ?? 0).plus(locked ?? 0);
    }
    return sum.shiftedBy(-8).toNumber();
  };

  it('keeps the subscription\'s records and money at the follower\'s home, its id in the master\'s list on shard 0', async () => {
    const slave = await b.slave(follower, 2_000);
    const sub = await subscription((await b.subscribe(follower, m, slave, 500)).id);
    expect(shardOfId(sub.id)).toBe(FOLLOWER_HOME);
    const home = b.ctx.shards.keys(FOLLOWER_HOME);
    expect(await b.ctx.redis.hget(home.copySubscription(sub.id), 'state')).toBe('Active');
    expect(await b.ctx.redis.exists(b.ctx.keys.copySubscription(sub.id))).toBe(0);
    expect(new BigNumber((await b.ctx.redis.hget(home.copyLedger(sub.id), 'netIn'))!).toNumber()).toBe(500e8);
    expect(await b.ctx.redis.zrange(home.copySlaveSubscriptions(String(slave)), '0', '-1')).toEqual([sub.id]);
    expect(await b.ctx.redis.get(home.copyActiveSubscription(String(m), String(slave)))).toBe(sub.id);
    expect(await b.ctx.redis.zrange(b.ctx.keys.copyMasterSubscriptions(String(m)), '0', '-1')).toEqual([sub.id]);
    expect(await b.ctx.redis.smembers(home.copyStarting())).toEqual([]);
    // the subscription's margin of record at home, the slave's taken from its escrow there
    expect(new BigNumber((await b.ctx.redis.hget(home.futuresAccount(sub.acct), 'balance'))!).toNumber()).toBe(500e8);
    expect([shardOfId(sub.acct), shardOfId(String(slave))]).toEqual([FOLLOWER_HOME, FOLLOWER_HOME]);
    expect(await b.ctx.copy.settlement.resume()).toBe(0);
    // a slave registered at home: the start moved no money between shards
    expect(await b.ctx.funds.ledger.outbox(copyShard())).toEqual([]);
    expect((await b.account(follower, slave)).available).toBe(1_500);
    // merged reads: the follower's lists, the master's followers and the board
    expect((await b.get(follower, `${S}/following`)).body.items.map((x: { id: number }) => String(x.id))).toEqual([sub.id]);
    const member = rankMember(m);
    expect(await b.ctx.redis.zscore(b.ctx.keys.copyBoard('followers'), member)).toBe('-1');
    expect(await b.ctx.redis.zscore(b.ctx.keys.copyBoard('aum'), member)).toBe('-500');
    await atRest();
  });

  it('margin changes at once, adds and removes, serialize: the margin recorded is the account\'s money, the rest the slave\'s', async () => {
    const slave = await b.slave(follower, 2_000);
    const sub = await subscription((await b.subscribe(follower, m, slave, 500)).id);
    const answers = await Promise.all([700, 300, 900, 100, 600].map((x) => update(slave, x)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const now = await subscription(sub.id);
    const margin = new BigNumber(now.margin).shiftedBy(-8).toNumber();
    expect([100, 300, 600, 700, 900]).toContain(margin);
    expect(await moneyOf(sub.acct)).toBe(margin);
    expect(await moneyOf(slave)).toBe(2_000 - margin);
    expect(new BigNumber((await b.ctx.redis.hget(homeKeys(sub.id).copyLedger(sub.id), 'netIn'))!).shiftedBy(-8).toNumber()).toBe(margin);
    await atRest();
  });

  it('a margin decrease sweeps the proceeds home from the market\'s shard first; an increase whose top-up is cut is a 503 that changes nothing', async () => {
    const { slave, sub, mOrder } = await followerInProfit(oldSlave);
    await realize(mOrder);
    const home = b.ctx.shards.keys(FOLLOWER_HOME);
    const atHome = async () => new BigNumber((await b.ctx.redis.hget(home.futuresAccount(sub.acct), 'balance'))!).shiftedBy(-8).toNumber();
    // the mirrored position's margin and its proceeds sit on shard 0 (BTC_USDT's): home holds less than 999
    expect(await atHome()).toBeLessThan(999);
    const total = await moneyOf(sub.acct);
    expect((await update(slave, 1)).status).toBe(200);
    expect(await moneyOf(sub.acct)).toBeCloseTo(total - 999, 8);
    expect(new BigNumber((await b.ctx.redis.hget(b.ctx.keys.futuresAccount(sub.acct), 'balance')) ?? 0).toNumber()).toBe(0);
    expect(await moneyOf(slave)).toBeCloseTo(1_999, 8);
    await atRest();

    // the slave's escrow at home holds less than 1,499: the increase needs a top-up from shard 0
    const ledger = b.ctx.funds.ledger;
    const credit = ledger.creditAll.bind(ledger);
    ledger.creditAll = async () => {
      throw new AppError(503, 'SHARD_UNAVAILABLE', 'relay killed after marking the debit durable');
    };
    const cut = await update(slave, 1_500);
    expect(cut.status).toBe(503);
    expect(new BigNumber((await subscription(sub.id)).margin).shiftedBy(-8).toNumber()).toBe(1);
    expect(await moneyOf(sub.acct)).toBeCloseTo(total - 999, 8);
    ledger.creditAll = credit;
    expect(await b.ctx.funds.relay!.drain(copyShard(), 0)).toBe(1);
    expect((await update(slave, 1_500)).status).toBe(200);
    expect(await moneyOf(sub.acct)).toBeCloseTo(total + 500, 8);
    expect(await moneyOf(slave)).toBeCloseTo(500, 8);
    await atRest();
  });

  it('a start racing a finish of the same pair: each finish finds it or not, nothing is lost', async () => {
    const slave = await b.slave(follower, 2_000);
    for (let round = 0; round < 3; round++) {
      const [start, fin] = await Promise.all([b.start(follower, m, slave, 400), b.post(follower, `${S}/finishMasterCopy`, finishBody(slave))]);
      expect(start.status).toBe(200);
      expect([200, 404, 409]).toContain(fin.status);
      await b.ctx.copy.settlement.resume();
      const active = (await b.get(follower, `${S}/following`)).body.items;
      if (active.length) expect((await b.post(follower, `${S}/finishMasterCopy`, finishBody(slave))).status).toBe(200);
      expect(await moneyOf(slave)).toBeCloseTo(2_000, 8);
      await atRest();
    }
  });

  it('a start cut off before its link: resume() links it; a master closed meanwhile finishes it and returns the margin', async () => {
    const slave = await b.slave(follower, 2_000);
    const { CopyEngine } = await import('../../../src/copy/copy-engine');
    const { CopyStore } = await import('../../../src/copy/copy-store');
    const { copyPayees } = await import('../../../src/copy');
    const store = new CopyStore(b.ctx.redis, b.ctx.keys, b.ctx.shards);
    const engine = new CopyEngine(b.ctx.keys, b.ctx.scripts, b.ctx.config.streamMaxLen, copyPayees(b.ctx.funds, b.ctx.log), b.ctx.shards, store);
    const master = (await store.master(String(m)))!;
    const stepOnly = async (margin: number) => {
      const subId = await store.nextSubscriptionId(FOLLOWER_HOME);
      const acct = await b.ctx.futures.accounts.create(follower, { name: `copy #${subId}`, currencyCode: 'USDT', leverage: 10 }, 'copy', FOLLOWER_HOME);
      const none = { stopLossPercent: '', takeProfitPercent: '', maxSlippagePercent: '' };
      await engine.start(follower, master, String(slave), String(acct.id), subId, new BigNumber(margin).shiftedBy(8).toFixed(0), Date.now(), none);
      return subId;
    };
    const first = await stepOnly(300);
    expect(await b.ctx.redis.smembers(b.ctx.shards.keys(FOLLOWER_HOME).copyStarting())).toEqual([first]);
    expect(await b.ctx.redis.zrange(b.ctx.keys.copyMasterSubscriptions(String(m)), '0', '-1')).toEqual([]);
    expect(await b.ctx.copy.settlement.resume()).toBe(1);
    expect(await b.ctx.redis.zrange(b.ctx.keys.copyMasterSubscriptions(String(m)), '0', '-1')).toEqual([first]);
    expect((await subscription(first)).state).toBe('Active');
    expect(await b.ctx.copy.settlement.resume()).toBe(0);
    expect((await b.post(follower, `${S}/finishMasterCopy`, finishBody(slave))).status).toBe(200);

    const second = await stepOnly(200);
    expect((await b.del(owner, `/api/copy-master/${m}`)).status).toBe(200);
    expect(await b.ctx.copy.settlement.resume()).toBe(1);
    const done = await subscription(second);
    expect([done.state, done.reason]).toEqual(['Finished', 'MASTER_CLOSED']);
    expect(await b.ctx.redis.zrange(b.ctx.keys.copyMasterSubscriptions(String(m)), '0', '-1')).toEqual([first]);
    expect(await moneyOf(done.acct)).toBe(0);
    expect(await moneyOf(slave)).toBeCloseTo(2_000, 8);
    await atRest();
  });

  it('the relay killed between a start\'s debit and credit (a slave from before homes, on shard 0): 503, in transit; delivered twice at once and again, credited once; the retry starts', async () => {
    const slave = await oldSlave(follower, 2_000);
    const ledger = b.ctx.funds.ledger;
    const credit = ledger.creditAll.bind(ledger);
    ledger.creditAll = async () => {
      throw new AppError(503, 'SHARD_UNAVAILABLE', 'relay killed after marking the debit durable');
    };
    const r = await b.start(follower, m, slave, 500);
    expect(r.status).toBe(503);
    expect(await b.ctx.redis.zcard(b.ctx.keys.copyMasterSubscriptions(String(m)))).toBe(0);
    const pending = await ledger.outbox(copyShard());
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ acct: String(slave), from: copyShard(), to: FOLLOWER_HOME });
    const rows = await httpHelpers(b.app).reconcile();
    const row = rows.find((x) => x.currencyCode === 'USDT')!;
    expect(row.difference).toBe(0);
    expect(row.terms.inTransit).toBeGreaterThanOrEqual(500);
    expect(await moneyOf(slave)).toBeLessThan(2_000); // its escrow at home not credited yet
    ledger.creditAll = credit;
    const relay = b.ctx.funds.relay!;
    await Promise.all(pending.flatMap((t) => [relay.deliver(t), relay.deliver(t)]));
    for (const t of pending) await relay.deliver(t);
    expect(await moneyOf(slave)).toBeCloseTo(2_000, 8);
    const again = await b.start(follower, m, slave, 500);
    expect(again.status).toBe(200);
    expect((await b.account(follower, slave)).available).toBe(1_500);
    await atRest();
  });

  it('a subscription at home on shard 0 (as every one from before homes) takes the single-step path and finishes', async () => {
    const old = await userWithHome(b.ctx, 0, 'old');
    const slave = await b.slave(old, 1_000);
    const sub = (await b.subscribe(old, m, slave, 400)) as { id: number };
    expect(shardOfId(String(sub.id))).toBe(0);
    expect(await b.ctx.redis.hget(b.ctx.keys.copySubscription(sub.id), 'state')).toBe('Active');
    expect(shardOfId((await b.ctx.redis.hget(b.ctx.keys.copySubscription(sub.id), 'acct'))!)).toBe(0);
    const fin = await b.post(old, `${S}/finishMasterCopy`, { copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, closeOrders: true });
    expect(fin.status).toBe(200);
    expect((await b.account(old, slave)).available).toBeCloseTo(1_000, 6);
    await atRest();
  });
});

describe('reads across homes', () => {
  it('a shard that cannot answer makes the follower\'s merged lists a 503, never a partial list', async () => {
    const slave = await b.slave(follower, 2_000);
    await b.subscribe(follower, m, slave, 500);
    const old = await userWithHome(b.ctx, 0, 'old');
    const oldSlave = await b.slave(old, 1_000);
    await b.subscribe(old, m, oldSlave, 300);
    const redis = b.ctx.redis;
    const zrange = redis.zrange.bind(redis);
    const unreachable = b.ctx.shards.keys(FOLLOWER_HOME).engine;
    redis.zrange = ((key: string, ...rest: never[]) => {
      if (String(key).startsWith(unreachable)) return Promise.reject(new Error('Connection is closed.'));
      return (zrange as (...a: unknown[]) => Promise<string[]>)(key, ...rest);
    }) as typeof redis.zrange;
    try {
      for (const path of [`${S}/following`, `${S}/${slave}/subscriptions`, `${S}/${oldSlave}/subscriptions`]) {
        const r = await b.get(path.includes(String(oldSlave)) ? old : follower, path);
        expect([path, r.status, r.body.error?.code]).toEqual([path, 503, 'ENGINE_UNAVAILABLE']);
      }
    } finally {
      redis.zrange = zrange;
    }
    // answered again, whole: each follower's own subscription
    expect((await b.get(follower, `${S}/following`)).body.items).toHaveLength(1);
    expect((await b.get(old, `${S}/following`)).body.items).toHaveLength(1);
    await atRest();
  });
});

describe('a subscription from before homes (on shard 0) of a follower at home on shard 2', () => {
  it('keeps working beside new ones: listed, holds its claim, settles and finishes on shard 0', async () => {
    const slave = await oldSlave(follower, 2_000);
    const { CopyEngine } = await import('../../../src/copy/copy-engine');
    const { CopyStore } = await import('../../../src/copy/copy-store');
    const { copyPayees } = await import('../../../src/copy');
    const store = new CopyStore(b.ctx.redis, b.ctx.keys, b.ctx.shards);
    const engine = new CopyEngine(b.ctx.keys, b.ctx.scripts, b.ctx.config.streamMaxLen, copyPayees(b.ctx.funds, b.ctx.log), b.ctx.shards, store);
    // as the code before homes made it: an id of shard 0's counter, the account's margin of record on
    // shard 0 (no `home`), the slave's margin taken there, every record on shard 0
    const legacyId = await store.nextSubscriptionId(0);
    expect(shardOfId(legacyId)).toBe(0);
    const acct = await b.ctx.futures.accounts.create(follower, { name: `copy #${legacyId}`, currencyCode: 'USDT', leverage: 10 }, 'copy', 0);
    const none = { stopLossPercent: '', takeProfitPercent: '', maxSlippagePercent: '' };
    await engine.start(follower, (await store.master(String(m)))!, String(slave), String(acct.id), legacyId, String(700e8), Date.now(), none);
    expect(await b.ctx.redis.hget(b.ctx.keys.copySubscription(legacyId), 'state')).toBe('Active');
    expect(await b.ctx.redis.exists(b.ctx.shards.keys(FOLLOWER_HOME).copySubscription(legacyId))).toBe(0);
    // its claim on shard 0 still refuses a second subscription of the pair
    const again = await b.start(follower, m, slave, 100);
    expect([again.status, again.body.error.code]).toEqual([409, 'SUBSCRIPTION_EXISTS']);
    // a second master, followed the new way at home, listed beside it
    const m2 = await b.master(owner, { commissionRate: 36.5, slaveIncomePercentage: 20 });
    const fresh = await b.subscribe(follower, m2, slave, 300);
    expect(shardOfId(String(fresh.id))).toBe(FOLLOWER_HOME);
    const following = (await b.get(follower, `${S}/following`)).body.items.map((x: { id: number }) => String(x.id)).sort();
    expect(following).toEqual([legacyId, String(fresh.id)].sort());
    // the master's trade mirrored into the old subscription, realized, settled and finished on shard 0
    const mOrder = await b.order(owner, m, true, null, 10);
    await b.pump();
    const ann = await b.fundedAccount('ann', 1_000_000, 10);
    await b.order('ann', ann, true, 130, 100);
    await realize(mOrder);
    const paid = await b.ctx.copy.settlement.settle((await store.subscription(legacyId))!);
    expect(new BigNumber(paid.share).toNumber()).toBeGreaterThan(0);
    expect((await b.post(follower, `${S}/finishMasterCopy`, finishBody(slave))).status).toBe(200);
    const done = (await store.subscription(legacyId))!;
    expect(done.state).toBe('Finished');
    const l = await b.ctx.redis.hgetall(b.ctx.keys.copyLedger(legacyId));
    // the old subscription's payments leave shard 0, where its money of record is
    const payments = (await Promise.all([...new Set(carried)].map(record))).filter((r) => r.kind === 'payment' && r.from === String(copyShard()));
    expect(payments.reduce((t, r) => t.plus(r.amount), new BigNumber(0)).toFixed(0)).toBe(new BigNumber(l.commission).plus(l.shared).toFixed(0));
    expect((await b.post(follower, `${S}/finishMasterCopy`, { ...finishBody(slave), copyMasterFuturesAccountId: m2 })).status).toBe(200);
    await atRest();
  });
});
