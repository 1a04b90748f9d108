import request from 'supertest';
import { futuresBed } from './helpers';

type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;

beforeEach(async () => {
  b = await futuresBed();
});
afterEach(async () => b.ctx.cleanup());

describe('futures deals', () => {
  it('lists market-wide deals newest first with totalCount, pair and date filters and paging', async () => {
    const alice = await b.fundedAccount('alice');
    const bob = await b.fundedAccount('bob');
    await b.order('alice', alice, true, 100, 1);
    await b.order('bob', bob, false, null, 0.4); // deal 1: sell 0.4 @ 100
    await b.order('bob', bob, false, null, 0.6); // deal 2: sell 0.6 @ 100
    await b.order('bob', bob, false, 2000, 0.01, { currencyPairCode: 'ETH_USDT' });
    await b.order('alice', alice, true, null, 0.01, { currencyPairCode: 'ETH_USDT' }); // deal 3: buy @ 2000

    const all = await request(b.app).get('/api/futures/deals');
    expect(all.status).toBe(200);
    expect(all.body.totalCount).toBe(3);
    expect(all.body.items[0]).toEqual({
      timestamp: expect.any(String), price: 2000, amount: 0.01, currencyPairCode: 'ETH_USDT', isLong: true, orderSide: 1,
    });
    expect(all.body.items.slice(1)).toEqual([
      { timestamp: expect.any(String), price: 100, amount: 0.6, currencyPairCode: 'BTC_USDT', isLong: false, orderSide: 2 },
      { timestamp: expect.any(String), price: 100, amount: 0.4, currencyPairCode: 'BTC_USDT', isLong: false, orderSide: 2 },
    ]);
    const btc = await request(b.app).get('/api/futures/deals?CurrencyPair=BTC_USDT&PageSize=1&Page=2');
    expect(btc.body.totalCount).toBe(2);
    expect(btc.body.items).toHaveLength(1);
    expect(btc.body.items[0].amount).toBe(0.4);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await request(b.app).get(`/api/futures/deals?DateFrom=${future}`)).body).toEqual({ totalCount: 0, items: [] });
    expect((await request(b.app).get(`/api/futures/deals?dateto=${future}`)).body.totalCount).toBe(3);
    for (const q of ['Page=0', 'PageSize=501', 'DateFrom=nope', 'Side=buy']) {
      const r = await request(b.app).get(`/api/futures/deals?${q}`);
      expect([q, r.status, r.body.error.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
    const unknown = await request(b.app).get('/api/futures/deals?CurrencyPair=NOPE_USDT');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'PAIR_NOT_FOUND']);
  });

  it('lists the caller\'s deals with fee, realized pnl, trade type, order id and side', async () => {
    const alice = await b.fundedAccount('alice');
    const bob = await b.fundedAccount('bob');
    const carol = await b.fundedAccount('carol');
    const long = await b.order('alice', alice, true, 100, 1);
    const short = await b.order('bob', bob, false, null, 1);
    await b.order('carol', carol, true, 110, 1);
    await b.put('alice', '/api/futures/trade/close', { orderId: long, isMarket: true });

    const r = await b.get('alice', '/api/futures/deals/user');
    expect(r.status).toBe(200);
    expect(r.body.totalCount).toBe(2);
    const [close, open] = r.body.items;
    expect(Object.keys(open).sort()).toEqual([
      'amount', 'currencyPairCode', 'fee', 'feeAsset', 'id', 'isLong', 'orderId', 'orderSide', 'price', 'realizedPnl',
      'timestamp', 'tradeType',
    ]);
    expect(open).toMatchObject({ price: 100, amount: 1, isLong: true, feeAsset: 'USDT', realizedPnl: 0, tradeType: 1, orderId: long, orderSide: 1 });
    expect(open.fee).toBeCloseTo(0.02, 10);
    expect(close).toMatchObject({ price: 110, amount: 1, isLong: true, realizedPnl: 10, tradeType: 2, orderId: long, orderSide: 2 });
    expect(close.fee).toBeCloseTo(0.055, 10);
    expect(close.id).toBeGreaterThan(open.id);

    const bobDeals = await b.get('bob', '/api/futures/deals/user?CurrencyPair=BTC_USDT');
    expect(bobDeals.body.items).toEqual([expect.objectContaining({ orderId: short, tradeType: 2, isLong: false, orderSide: 2 })]);
    expect((await b.get('dan', '/api/futures/deals/user')).body).toEqual({ totalCount: 0, items: [] });
    expect((await b.get('alice', '/api/futures/deals/user?Page=2&PageSize=1')).body.items[0].orderSide).toBe(1);
    expect((await request(b.app).get('/api/futures/deals/user')).status).toBe(401);
    expect((await b.get('alice', '/api/futures/deals/user?PageSize=0')).status).toBe(400);
  });
});
