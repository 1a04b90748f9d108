import request from 'supertest';
import { futuresParams } from '../../../src/domain/futures';
import { futuresBed } from './helpers';
import { futuresOrderOf } from '../../../src/futures/futures-order-record';

/** The extensions of the futures trade routes (docs/futures.md#endpoints) copy trading mirrors with: timeInForce IOC and the partial close (docs/futures.md). */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
let alice: number;
let bob: number;
let carol: number;

beforeEach(async () => {
  b = await futuresBed();
  alice = await b.fundedAccount('alice');
  bob = await b.fundedAccount('bob');
  carol = await b.fundedAccount('carol');
});
afterEach(async () => b.ctx.cleanup());

const TRADE = '/api/futures/trade';
const book = async () => (await request(b.app).get(`${TRADE}/orderbook/BTC_USDT`)).body;
const hash = async (id: number) => futuresOrderOf(await b.ctx.redis.hgetall(b.ctx.keys.order(id)));
const acctHash = (id: number) => b.ctx.redis.hgetall(b.ctx.keys.futuresAccount(id));

describe('timeInForce IOC', () => {
  it('fills what it can at once, cancels the rest and keeps no reservation', async () => {
    const before = await b.usdtTotal();
    await b.order('bob', bob, false, 100, 0.5);
    await b.order('bob', bob, false, 101, 1);
    const id = await b.order('alice', alice, true, 100, 2, { timeInForce: 'IOC' });
    const rec = await b.record('alice', id);
    expect(rec).toMatchObject({ futuresOrderStatus: 50, filled: 0.5, amountInPosition: 0.5 });
    // nothing of it rests: the ask at 101 is above its limit and stays, no bid was added
    expect(await book()).toMatchObject({ bids: [], asks: [{ price: 101, quantity: 1 }] });
    const h = await hash(id);
    expect(h.rsv).toBe('0');
    // locked is the position's margin only
    expect((await acctHash(alice)).locked).toBe(h.margin);
    expect(await b.usdtTotal()).toBe(before);
  });

  it('that cannot fill ends Cancelled (30) with its reservation back; GTC at the same price rests', async () => {
    await b.order('bob', bob, false, 101, 1);
    const ioc = await b.order('alice', alice, true, 100, 1, { timeInForce: 'IOC' });
    expect(await b.record('alice', ioc)).toMatchObject({ futuresOrderStatus: 30, filled: 0 });
    expect(await b.account('alice', alice)).toMatchObject({ available: 100_000, usedMargin: 0 });
    expect((await book()).bids).toEqual([]);
    const gtc = await b.order('alice', alice, true, 100, 1, { timeInForce: 'GTC' });
    expect(await b.record('alice', gtc)).toMatchObject({ futuresOrderStatus: 10 });
    expect((await book()).bids).toEqual([{ price: 100, quantity: 1 }]);
  });

  it('post-only with IOC and an unknown timeInForce are 400s', async () => {
    const body = { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: alice };
    expect((await b.create('alice', { ...body, postOnly: true, timeInForce: 'IOC' })).status).toBe(400);
    expect((await b.create('alice', { ...body, timeInForce: 'FOK' })).status).toBe(400);
  });
});

describe('partial close', () => {
  /** alice long 1 at 100 (bob the short), with TP and SL set. */
  async function longOne(): Promise<number> {
    const long = await b.order('alice', alice, true, 100, 1, { takeProfit: 150, stopLoss: 80 });
    await b.order('bob', bob, false, null, 1);
    return long;
  }

  it('at market releases its share of the margin with exactly its realized pnl; the rest keeps its TP/SL', async () => {
    const long = await longOne();
    await b.order('carol', carol, true, 110.3, 1); // a bid to close into
    const before = await b.usdtTotal();
    const pos0 = await hash(long);
    const acct0 = await acctHash(alice);
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true, amount: 0.3 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.7, takeProfit: 150, stopLoss: 80 });

    const pair = await b.ctx.futures.orders.futuresPair('BTC_USDT');
    const { ns, takerPpm } = futuresParams(pair);
    const q = Math.round(0.3 * 10 ** pair.digitsAmount);
    const ticks = Math.round(110.3 * 10 ** pair.digitsPrice);
    const open0 = Number(pos0.openQty);
    const portion = Math.floor((Number(pos0.cost) * q) / open0);
    const mrel = Math.floor((Number(pos0.margin) * q) / open0);
    const pnl = (ticks * q - portion) * ns;
    const fee = Math.ceil((ticks * q * ns * takerPpm) / 1e6);
    const pos1 = await hash(long);
    expect(Number(pos1.rpnl)).toBe(pnl);
    expect(Number(pos1.margin)).toBe(Number(pos0.margin) - mrel);
    expect(Number(pos1.cost)).toBe(Number(pos0.cost) - portion);
    expect([pos1.tp, pos1.sl]).toEqual([pos0.tp, pos0.sl]);
    const acct1 = await acctHash(alice);
    expect(Number(acct1.locked)).toBe(Number(acct0.locked) - mrel);
    expect(Number(acct1.balance)).toBe(Number(acct0.balance) + mrel + pnl - fee);
    expect(await b.usdtTotal()).toBe(before);
    // the rest is still in the TP/SL indices: a sweep closes it like any position
    const k = b.ctx.keys;
    expect(await b.ctx.redis.zscore(k.futuresTrigger('BTC_USDT', 'tpL'), String(long))).toBe(pos0.tp);
    expect(await b.ctx.redis.zscore(k.futuresTrigger('BTC_USDT', 'slL'), String(long))).toBe(pos0.sl);
  });

  it('at a limit rests for its amount only and fills later; more than the position closes all', async () => {
    const long = await longOne();
    const before = await b.usdtTotal();
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: false, limitPrice: 120, amount: 0.4 });
    expect(r.status).toBe(200);
    expect(await book()).toMatchObject({ asks: [{ price: 120, quantity: 0.4 }] });
    await b.order('carol', carol, true, null, 1); // takes the 0.4 and no more
    expect(await b.record('alice', long)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.6, realizedPnl: 8 });
    await b.order('carol', carol, true, 130, 1);
    const all = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true, amount: 5 });
    expect(all.body).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0 });
    expect(await b.account('alice', alice)).toMatchObject({ usedMargin: 0 });
    expect(await b.usdtTotal()).toBe(before);
  });

  it('an amount that rounds below the lot is a 422 and changes nothing', async () => {
    const long = await longOne();
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true, amount: 0.00001 });
    expect([r.status, r.body.error.code]).toEqual([422, 'BELOW_MIN_BASE_AMOUNT']);
    expect(await b.record('alice', long)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 1 });
  });
});
