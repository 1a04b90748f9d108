import BigNumber from 'bignumber.js';
import { copyBed, type CopyBed } from './helpers';

/** Issue 9, findings 1-8: each transition is one engine step or a resumable state machine. */
let b: CopyBed;
let m: number;
beforeEach(async () => {
  b = await copyBed();
  await b.liquidity(100);
  m = await b.master('max', { commissionRate: 0, slaveIncomePercentage: 20 });
});
afterEach(async () => b.ctx.cleanup());

const S = '/api/copy-slave';
const TRADE = '/api/futures/trade';
const body = (slave: number, margin: number) => ({ copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, margin });
const finishBody = (slave: number, closeOrders: boolean) => ({ copyMasterFuturesAccountId: m, copySlaveFuturesAccountId: slave, closeOrders });
const floor8 = (x: BigNumber.Value) => new BigNumber(x).decimalPlaces(8, BigNumber.ROUND_FLOOR).toNumber();

/** Someone bids `price` for 100 BTC: it takes what is left of the asks at 101 and rests the rest. */
async function bidUp(price: number) {
  const ann = await b.fundedAccount('ann', 1_000_000, 10);
  await b.order('ann', ann, true, price, 100);
}

/** The subscription's futures account as its owner sees it. */
async function copyAccount(user: string) {
  return (await b.get(user, '/api/futures/accounts')).body.find((a: { name: string }) => a.name.startsWith('copy #'));
}

/** The master buys 10 at market and the follower mirrors it; then the bid rises to 120: a profit, unrealized. */
async function followerInProfit(user: string, margin: number) {
  const slave = await b.slave(user, 1_000);
  const sub = await b.subscribe(user, m, slave, margin);
  const mOrder = await b.order('max', m, true, null, 10);
  await b.pump();
  await bidUp(120);
  return { slave, sub, mOrder };
}

describe('copy transitions (issue 9)', () => {
  it('finding 1: finish with closeOrders settles the profit share before the mirror sweeps the money out', async () => {
    const { slave } = await followerInProfit('sam', 500);
    const total = await b.usdtTotal();
    const wallet = await b.walletUsdt('max');
    let finishing = true;
    const mirror = (async () => {
      while (finishing) await b.pump(); // the mirror worker, racing the finish
    })();
    const r = await b.post('sam', `${S}/finishMasterCopy`, finishBody(slave, true));
    finishing = false;
    await mirror;
    await b.pump();
    expect(r.status).toBe(200);
    const profit = new BigNumber(r.body.totalProfit).plus(r.body.commission).toNumber(); // realized, before the share
    expect(profit).toBeGreaterThan(5);
    const share = floor8(new BigNumber(profit).times(0.2));
    expect(await b.walletUsdt('max')).toBeCloseTo(wallet + share, 8);
    expect(r.body.commission).toBeCloseTo(share, 8);
    expect(r.body.settledEquity).toBeCloseTo(500 + profit - share, 8);
    expect((await b.account('sam', slave)).available).toBeCloseTo(1_000 + profit - share, 8);
    expect(await b.usdtTotal()).toBe(total); // conserved
  });

  it('finding 2: DELETE master settles every follower before returning its money', async () => {
    const { slave } = await followerInProfit('sam', 500);
    const wallet = await b.walletUsdt('max');
    const del = await b.del('max', `/api/copy-master/${m}`);
    expect(del.status).toBe(200);
    await b.pump();
    const [sub] = (await b.get('sam', `${S}/following?onlyHistory=true`)).body.items;
    expect(sub).toMatchObject({ reason: 'MASTER_CLOSED', isActive: false });
    const profit = new BigNumber(sub.totalProfit).plus(sub.commission).toNumber();
    expect(profit).toBeGreaterThan(5);
    const share = floor8(new BigNumber(profit).times(0.2));
    expect(sub.settledEquity).toBeCloseTo(500 + profit - share, 8);
    expect(sub.commission).toBeCloseTo(share, 8);
    expect((await b.account('sam', slave)).available).toBeCloseTo(1_000 + profit - share, 8);
    // the master's own equity went to the wallet beside the share
    expect(await b.walletUsdt('max')).toBeCloseTo(wallet + share + del.body.totalPnl + 10_000, 6);
  });

  it('finding 3: of five concurrent finishes one answers 200 and four 409; the share is charged once', async () => {
    const { slave } = await followerInProfit('sam', 500);
    const wallet = await b.walletUsdt('max');
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => b.post('sam', `${S}/finishMasterCopy`, finishBody(slave, true))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const ok = answers.find((a) => a.status === 200)!.body;
    const share = floor8(new BigNumber(ok.totalProfit).plus(ok.commission).times(0.2));
    expect(await b.walletUsdt('max')).toBeCloseTo(wallet + share, 8);
  });

  it('finding 4: five concurrent margin changes serialize: recorded margin = money in the subscription', async () => {
    const slave = await b.slave('sam', 1_000);
    await b.subscribe('sam', m, slave, 20);
    const answers = await Promise.all([30, 40, 50, 60, 70].map((x) => b.post('sam', `${S}/updateMasterCopySettings`, body(slave, x))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const margin = (await b.get('sam', `${S}/${slave}/${m}/settings`)).body.margin;
    expect((await copyAccount('sam')).available).toBe(margin);
    expect((await b.account('sam', slave)).available).toBe(1_000 - margin);
  });

  it('finding 5: a master cannot follow itself (422 SELF_COPY)', async () => {
    const own = await b.slave('max', 1_000);
    const r = await b.start('max', m, own, 100);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('SELF_COPY');
    expect((await b.pub(`/api/copy-master/${m}/analytics`)).body.subscribersCount).toBe(0);
  });

  it('finding 6: the subscription account belongs to the copy: transfers and hand-placed opening orders are 409', async () => {
    const slave = await b.slave('sam', 1_000);
    await b.subscribe('sam', m, slave, 500);
    const acct = (await copyAccount('sam')).id;
    await b.deposit('sam', 500);
    for (const t of [
      { fromFuturesAccountId: acct, toFuturesAccountId: null, currencyCode: 'USDT', amount: 100 },
      { fromFuturesAccountId: null, toFuturesAccountId: acct, currencyCode: 'USDT', amount: 500 },
      { fromFuturesAccountId: acct, toFuturesAccountId: slave, currencyCode: 'USDT', amount: 1 },
    ]) {
      const r = await b.post('sam', '/api/wallet/transfer', t);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('COPY_ACCOUNT');
    }
    const hand = await b.create('sam', { isMarket: true, isLong: true, price: 0, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: acct });
    expect(hand.status).toBe(409);
    expect(hand.body.error.code).toBe('COPY_ACCOUNT');
    // the mirrored position may be closed by hand
    await b.order('max', m, true, null, 10);
    await b.pump();
    const [f] = (await b.orders('sam')).filter((o: { clientOrderId: string | null }) => o.clientOrderId?.startsWith('copy:'));
    expect((await b.put('sam', `${TRADE}/close`, { orderId: f.id, isMarket: true })).status).toBe(200);
    expect((await copyAccount('sam')).available + 0).toBeLessThan(500);
  });

  it('finding 7: a start that dies after making its account leaves no claim and no money moved; the next start works', async () => {
    const slave = await b.slave('sam', 1_000);
    const accounts = b.ctx.futures.accounts;
    const real = accounts.create.bind(accounts);
    const spy = jest.spyOn(accounts, 'create').mockImplementationOnce(async (...args) => {
      await real(...args);
      throw new Error('process died');
    });
    expect((await b.start('sam', m, slave, 300)).status).toBe(500);
    spy.mockRestore();
    expect((await b.account('sam', slave)).available).toBe(1_000);
    expect((await b.get('sam', `${S}/${slave}/${m}/settings`)).status).toBe(404);
    const r = await b.start('sam', m, slave, 300);
    expect(r.status).toBe(200);
    expect((await b.get('sam', `${S}/${slave}/${m}/settings`)).body.margin).toBe(300);
    expect((await b.account('sam', slave)).available).toBe(700);
  });

  it('finding 8: the share is on realized profit only; a settlement while positions are open waives nothing', async () => {
    const { slave, sub, mOrder } = await followerInProfit('sam', 500);
    const record = (await b.ctx.copy.slaves.subscriptionsTo('sam', slave))[0];
    expect(String(sub.id)).toBe(record.id);
    expect((await b.setIndex('BTC_USDT', 120)).status).toBe(200);
    expect((await copyAccount('sam')).equity).toBeGreaterThan(505); // unrealized profit
    const wallet = await b.walletUsdt('max');
    expect(await b.ctx.copy.settlement.settle(record)).toEqual({ fee: '0', share: '0' });
    expect((await b.put('max', `${TRADE}/close`, { orderId: mOrder, isMarket: true })).status).toBe(200);
    await b.pump(); // the follower's position closes with the master's
    const cash = (await copyAccount('sam')).balance;
    const realized = new BigNumber(cash).minus(500);
    expect(realized.toNumber()).toBeGreaterThan(5);
    const paid = await b.ctx.copy.settlement.settle(record);
    expect(new BigNumber(paid.share).shiftedBy(-8).toNumber()).toBe(floor8(realized.times(0.2)));
    expect((await b.ctx.copy.settlement.settle(record)).share).toBe('0');
    expect(await b.walletUsdt('max')).toBeCloseTo(wallet + floor8(realized.times(0.2)), 8);
    // margin added later is not profit
    await b.post('sam', `${S}/updateMasterCopySettings`, body(slave, 800));
    expect((await b.ctx.copy.settlement.settle(record)).share).toBe('0');
  });
});

describe('a finish cut off between its steps (the process died)', () => {
  it('is Finishing, takes no mirror, refuses a second finish, and resume() completes it once', async () => {
    const { CopyEngine } = await import('../../../src/copy/copy-engine');
    const { CopyStore } = await import('../../../src/copy/copy-store');
    const { copyPayees } = await import('../../../src/copy');
    const store = new CopyStore(b.ctx.redis, b.ctx.keys, b.ctx.shards);
    const payees = copyPayees(b.ctx.funds, b.ctx.log);
    const engine = new CopyEngine(b.ctx.keys, b.ctx.scripts, b.ctx.config.streamMaxLen, payees, b.ctx.shards, store);
    const slave = await b.slave('sam', 1_000);
    const sub = (await store.subscription(String((await b.subscribe('sam', m, slave, 500)).id)))!;
    await engine.beginFinish(sub, (await store.master(String(m)))!, 'sam', 'SLAVE_FINISHED', true, Date.now());
    expect((await store.subscription(sub.id))!.state).toBe('Finishing');
    expect((await b.post('sam', `${S}/finishMasterCopy`, finishBody(slave, true))).status).toBe(409);
    expect((await b.account('sam', slave)).available).toBe(500); // the margin is still in the copy account
    expect(await b.ctx.copy.settlement.resume()).toBe(1);
    expect((await store.subscription(sub.id))!.state).toBe('Finished');
    expect((await b.account('sam', slave)).available).toBe(1_000);
    expect(await b.ctx.copy.settlement.resume()).toBe(0);
    expect((await b.account('sam', slave)).available).toBe(1_000);
  });
});
