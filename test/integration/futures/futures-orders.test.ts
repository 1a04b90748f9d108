import request from 'supertest';
import { bearer } from '../../support/harness';
import { futuresBed } from './helpers';

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

describe('create-order and the order/position lifecycle', () => {
  it('rests a limit order as Created (10) and reserves margin plus the taker fee', async () => {
    const id = await b.order('alice', alice, true, 100, 1, { clientOrderId: 'a-1' });
    const rec = await b.record('alice', id);
    expect(rec).toMatchObject({
      id, clientOrderId: 'a-1', futuresOrderStatus: 10, price: 100, amount: 1, filled: 0, amountInPosition: 0,
      isLong: true, isMarket: false, leverage: 10, currencyPairCode: 'BTC_USDT', feeAsset: 'USDT', initialMargin: 0,
      liquidationPrice: 0, takeProfit: 0, stopLoss: 0,
    });
    // margin 100/10 + taker fee 0.05 + 1 minor unit per lot (10_000 lots of 0.0001)
    expect(await b.account('alice', alice)).toMatchObject({ available: 100_000 - 10.0501, usedMargin: 10.0501, balance: 100_000 });
    const book = await request(b.app).get(`${TRADE}/orderbook/BTC_USDT`);
    expect(book.status).toBe(200);
    expect(book.body).toEqual({ currencyPairCode: 'BTC_USDT', asks: [], bids: [{ price: 100, quantity: 1 }] });
  });

  it('fills into InPosition (50): partial fills move filled and amountInPosition; margin and fees settle', async () => {
    const long = await b.order('alice', alice, true, 100, 1);
    const short = await b.order('bob', bob, false, null, 0.4);
    let a = await b.record('alice', long);
    expect(a).toMatchObject({ futuresOrderStatus: 50, filled: 0.4, amountInPosition: 0.4, price: 100, initialMargin: 4, currentMargin: 4 });
    expect(a.fee).toBeCloseTo(0.008, 10); // maker 0.02 % of 40
    expect(a.liquidationPrice).toBe(90.5); // (100 - 4 / 0.4) / (1 - 0.005) = 90.45, up to a tick
    const s = await b.record('bob', short);
    expect(s).toMatchObject({ futuresOrderStatus: 50, filled: 0.4, amountInPosition: 0.4, isMarket: true, price: 100, liquidationPrice: 109.4 });
    // (100 + 4 / 0.4) / (1 + 0.005) = 109.45, down to a tick (toward safety)
    expect(s.fee).toBeCloseTo(0.02, 10); // taker 0.05 % of 40
    await b.order('carol', carol, false, 100, 0.6);
    a = await b.record('alice', long);
    expect(a).toMatchObject({ futuresOrderStatus: 50, filled: 1, amountInPosition: 1, initialMargin: 10 });
    const acct = await b.account('alice', alice);
    expect(acct.usedMargin).toBe(10);
    expect(acct.available).toBeCloseTo(100_000 - 10 - 0.02, 8);
    expect((await request(b.app).get(`${TRADE}/orderbook/BTC_USDT`)).body).toEqual({ currencyPairCode: 'BTC_USDT', asks: [], bids: [] });
  });

  it('close cancels an unfilled order (30) and releases its margin; closing it again is a 409', async () => {
    const id = await b.order('alice', alice, false, 120, 2);
    const r = await b.put('alice', `${TRADE}/close`, { orderId: id, isMarket: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, futuresOrderStatus: 30, filled: 0 });
    expect(await b.account('alice', alice)).toMatchObject({ available: 100_000, usedMargin: 0 });
    const again = await b.put('alice', `${TRADE}/close`, { orderId: id, isMarket: true });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ORDER_NOT_ACTIVE');
  });

  it('closes a position at market (20) with realized pnl, and a closed position cannot be closed again', async () => {
    const long = await b.order('alice', alice, true, 100, 1);
    await b.order('bob', bob, false, null, 1);
    await b.order('carol', carol, true, 110, 1); // a bid to close into
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0, realizedPnl: 10, filled: 1, liquidationPrice: 0 });
    expect(r.body.fee).toBeCloseTo(0.02 + 0.055, 10);
    const acct = await b.account('alice', alice);
    expect(acct.usedMargin).toBe(0);
    expect(acct.available).toBeCloseTo(100_000 + 10 - 0.02 - 0.055, 8);
    const again = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true });
    expect([again.status, again.body.error.code]).toEqual([409, 'ORDER_NOT_ACTIVE']);
    // the short now faces carol's long: still 50
    const pos = await b.get('bob', `${TRADE}/positions?IsActive=true`);
    expect(pos.body.map((p: { futuresOrderStatus: number }) => p.futuresOrderStatus)).toEqual([50]);
  });

  it('a limit close rests as the position\'s close order and closes the position when it fills', async () => {
    const long = await b.order('alice', alice, true, 100, 1);
    await b.order('bob', bob, false, null, 1);
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: false, limitPrice: 105 });
    expect(r.status).toBe(200);
    expect(r.body.futuresOrderStatus).toBe(50);
    expect((await request(b.app).get(`${TRADE}/orderbook/BTC_USDT`)).body.asks).toEqual([{ price: 105, quantity: 1 }]);
    await b.order('carol', carol, true, null, 0.3);
    expect(await b.record('alice', long)).toMatchObject({ futuresOrderStatus: 50, amountInPosition: 0.7, realizedPnl: 1.5 });
    // a new limit close replaces the working one
    const re = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: false, limitPrice: 104 });
    expect(re.status).toBe(200);
    expect((await request(b.app).get(`${TRADE}/orderbook/BTC_USDT`)).body.asks).toEqual([{ price: 104, quantity: 0.7 }]);
    await b.order('carol', carol, true, 104, 0.7);
    const done = await b.record('alice', long);
    expect(done).toMatchObject({ futuresOrderStatus: 20, amountInPosition: 0 });
    expect(done.realizedPnl).toBeCloseTo(1.5 + 2.8, 8);
    expect((await b.account('alice', alice)).usedMargin).toBe(0);
  });

  it('closing a partly filled order cancels its rest and closes the filled part', async () => {
    const long = await b.order('alice', alice, true, 100, 1);
    await b.order('bob', bob, false, null, 0.25);
    await b.order('carol', carol, true, 99, 1);
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ futuresOrderStatus: 20, filled: 0.25, amountInPosition: 0, realizedPnl: -0.25 });
    expect((await b.account('alice', alice)).usedMargin).toBe(0);
    expect((await request(b.app).get(`${TRADE}/orderbook/BTC_USDT`)).body.bids).toEqual([{ price: 99, quantity: 0.75 }]);
  });

  it('a market close with nothing to close against is refused and changes nothing', async () => {
    const long = await b.order('alice', alice, true, 100, 1);
    await b.order('bob', bob, false, null, 1);
    const before = await b.record('alice', long);
    const r = await b.put('alice', `${TRADE}/close`, { orderId: long, isMarket: true });
    expect([r.status, r.body.error.code]).toEqual([422, 'NO_LIQUIDITY']);
    expect(await b.record('alice', long)).toEqual(before);
  });

  it('repeating a clientOrderId returns the original order and reserves nothing twice, even 50 at once', async () => {
    const body = { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: alice, clientOrderId: 'same' };
    const replies = await Promise.all(Array.from({ length: 50 }, () => b.create('alice', body)));
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200]));
    const ids = new Set(replies.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    expect(replies[0].body).toEqual({ id: [...ids][0], clientOrderId: 'same' });
    expect((await b.get('alice', `${TRADE}/orders-history`)).body).toHaveLength(1);
    expect((await b.account('alice', alice)).usedMargin).toBe(10.0501);
    // the same clientOrderId from another user is another order; null and omitted are never idempotent
    const other = await b.create('bob', { ...body, futuresAccountId: bob });
    expect(other.body.id).not.toBe([...ids][0]);
    const n1 = await b.create('alice', { ...body, clientOrderId: null });
    const n2 = await b.create('alice', { ...body, clientOrderId: null });
    expect(n1.body.id).not.toBe(n2.body.id);
    expect(n1.body.clientOrderId).toBeNull();
  });

  it('rounds price and amount down to the pair digits and lot (order-book rule 9, docs/api-contract.md#order-book-rules)', async () => {
    const id = await b.order('alice', alice, true, 100.19, 1.23456);
    expect(await b.record('alice', id)).toMatchObject({ price: 100.1, amount: 1.2345 });
  });

  it('holds post-only and self-trade prevention on the futures book', async () => {
    await b.order('bob', bob, false, 100, 1);
    const po = await b.create('alice', { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: alice, postOnly: true });
    expect([po.status, po.body.error.code]).toEqual([422, 'ORDER_POST_ONLY_WOULD_TAKE']);
    const self = await b.order('bob', bob, true, 100, 1, { selfTradePrevention: 'EXPIRE_TAKER' });
    expect(await b.record('bob', self)).toMatchObject({ futuresOrderStatus: 30, filled: 0 });
    expect((await b.account('bob', bob)).usedMargin).toBe(10.0501);
  });
});

describe('take profit and stop loss updates', () => {
  it('sets TP and SL on the right side of the entry and refuses the wrong side', async () => {
    const long = await b.order('alice', alice, true, 100, 1, { takeProfit: 120, stopLoss: 90 });
    expect(await b.record('alice', long)).toMatchObject({ takeProfit: 120, stopLoss: 90 });
    const short = await b.order('bob', bob, false, null, 1);
    const tp = await b.put('alice', `${TRADE}/update-take-profit`, { orderId: long, takeProfit: 130 });
    expect(tp.status).toBe(200);
    expect(tp.body).toMatchObject({ takeProfit: 130, stopLoss: 90 });
    const sl = await b.put('alice', `${TRADE}/update-stop-loss`, { orderId: long, stopLoss: 95 });
    expect(sl.body).toMatchObject({ takeProfit: 130, stopLoss: 95 });
    const before = await b.record('alice', long);
    const cases: [string, string, Record<string, unknown>, number, string][] = [
      ['alice', 'update-take-profit', { orderId: long, takeProfit: 99 }, 422, 'INVALID_TRIGGER'],
      ['alice', 'update-stop-loss', { orderId: long, stopLoss: 101 }, 422, 'INVALID_TRIGGER'],
      ['bob', 'update-take-profit', { orderId: short, takeProfit: 101 }, 422, 'INVALID_TRIGGER'],
      ['bob', 'update-stop-loss', { orderId: short, stopLoss: 99 }, 422, 'INVALID_TRIGGER'],
      ['bob', 'update-take-profit', { orderId: long, takeProfit: 130 }, 404, 'ORDER_NOT_FOUND'],
      ['alice', 'update-take-profit', { orderId: 987654, takeProfit: 130 }, 404, 'ORDER_NOT_FOUND'],
      ['alice', 'update-take-profit', { orderId: long, takeProfit: -1 }, 400, 'VALIDATION_FAILED'],
      ['alice', 'update-stop-loss', { orderId: long }, 400, 'VALIDATION_FAILED'],
      ['alice', 'update-stop-loss', { orderId: long, stopLoss: 95, x: 1 }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [user, path, body, status, code] of cases) {
      const r = await b.put(user, `${TRADE}/${path}`, body);
      expect([path, r.status, r.body.error?.code]).toEqual([path, status, code]);
    }
    expect(await b.record('alice', long)).toEqual(before);
    const clear = await b.put('alice', `${TRADE}/update-take-profit`, { orderId: long, takeProfit: 0 });
    expect(clear.body.takeProfit).toBe(0);
    expect((await b.put('bob', `${TRADE}/update-take-profit`, { orderId: short, takeProfit: 80 })).status).toBe(200);
  });

  it('refuses a TP on the wrong side at creation and places nothing', async () => {
    const r = await b.create('alice', { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: alice, takeProfit: 90 });
    expect([r.status, r.body.error.code]).toEqual([422, 'INVALID_TRIGGER']);
    expect((await b.get('alice', `${TRADE}/orders-history`)).body).toEqual([]);
    expect((await b.account('alice', alice)).usedMargin).toBe(0);
  });
});

describe('create-order rejections', () => {
  it('answers bad input with the documented error bodies and changes nothing', async () => {
    await b.order('carol', carol, false, 100, 1);
    const eth = await request(b.app).post('/api/futures/accounts').set('Authorization', bearer('alice'))
      .send({ name: 'hi-lev', currencyCode: 'USDT', leverage: 60 });
    await request(b.app).post('/api/wallet/transfer').set('Authorization', bearer('alice'))
      .send({ fromFuturesAccountId: alice, toFuturesAccountId: eth.body.id, currencyCode: 'USDT', amount: 1000 });
    const poor = await b.fundedAccount('dan', 1);
    const base = { isMarket: false, isLong: true, price: 100, amount: 1, currencyPairCode: 'BTC_USDT', futuresAccountId: alice };
    const cases: [string, Record<string, unknown>, number, string][] = [
      ['alice', { ...base, futuresAccountId: 999999 }, 404, 'ACCOUNT_NOT_FOUND'],
      ['alice', { ...base, futuresAccountId: bob }, 404, 'ACCOUNT_NOT_FOUND'],
      ['alice', { ...base, currencyPairCode: 'ETH_USDT', price: 2000, futuresAccountId: eth.body.id }, 422, 'LEVERAGE_ABOVE_MAX'],
      ['alice', { ...base, stopLoss: 150 }, 422, 'INVALID_TRIGGER'],
      ['alice', { ...base, isLong: false, takeProfit: 150 }, 422, 'INVALID_TRIGGER'],
      ['dan', { ...base, futuresAccountId: poor }, 422, 'INSUFFICIENT_MARGIN'],
      ['alice', { ...base, amount: 0.00001 }, 422, 'BELOW_MIN_BASE_AMOUNT'],
      ['alice', { ...base, price: 1, amount: 1 }, 422, 'BELOW_MIN_QUOTE_AMOUNT'],
      ['alice', { ...base, currencyPairCode: 'DOGE_USDT' }, 400, 'UNKNOWN_CURRENCY_PAIR'],
      ['alice', { ...base, isMarket: false, price: undefined }, 400, 'VALIDATION_FAILED'],
      ['alice', { ...base, amount: -1 }, 400, 'VALIDATION_FAILED'],
      ['alice', { ...base, leverage: 5 }, 400, 'VALIDATION_FAILED'],
      ['alice', { ...base, isLong: 'yes' }, 400, 'VALIDATION_FAILED'],
      ['alice', { isMarket: true, isLong: true, amount: 1, currencyPairCode: 'ETH_USDT', futuresAccountId: alice }, 422, 'NO_LIQUIDITY'],
    ];
    const total = await b.usdtTotal();
    const accounts = await b.get('alice', '/api/futures/accounts');
    for (const [user, body, status, code] of cases) {
      const r = await b.create(user, body);
      expect([JSON.stringify(body), r.status, r.body.error?.code]).toEqual([JSON.stringify(body), status, code]);
      expect(Object.keys(r.body)).toEqual(['error']);
    }
    expect((await b.get('alice', `${TRADE}/orders-history`)).body).toEqual([]);
    expect((await b.get('alice', '/api/futures/accounts')).body).toEqual(accounts.body);
    expect(await b.usdtTotal()).toBe(total);
    expect((await request(b.app).post(`${TRADE}/create-order`).send(base)).status).toBe(401);
  });

  it('answers unknown and foreign orders on close with 404', async () => {
    const id = await b.order('alice', alice, true, 100, 1);
    for (const [user, body] of [['bob', { orderId: id, isMarket: true }], ['alice', { orderId: 424242, isMarket: true }]] as const) {
      const r = await b.put(user, `${TRADE}/close`, body);
      expect([r.status, r.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    }
    const bad = await b.put('alice', `${TRADE}/close`, { orderId: id, isMarket: false });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await b.record('alice', id)).futuresOrderStatus).toBe(10);
  });
});

describe('orders-history and positions', () => {
  it('filters by pair, statuses, account, dates, activity, and pages', async () => {
    const second = await b.fundedAccount('alice', 10_000, 5);
    const o1 = await b.order('alice', alice, true, 100, 1); // will fill: 50
    await b.order('bob', bob, false, null, 1);
    const o2 = await b.order('alice', alice, false, 130, 1); // rests: 10
    const o3 = await b.order('alice', second, true, 90, 1); // cancelled: 30
    await b.put('alice', `${TRADE}/close`, { orderId: o3, isMarket: true });
    const o4 = await b.order('alice', alice, true, 2000, 0.01, { currencyPairCode: 'ETH_USDT' });
    await b.order('carol', carol, false, 2000, 0.01, { currencyPairCode: 'ETH_USDT' });
    await b.order('bob', bob, true, 2100, 0.01, { currencyPairCode: 'ETH_USDT' });
    await b.put('alice', `${TRADE}/close`, { orderId: o4, isMarket: true }); // 20

    const ids = async (path: string) => {
      const r = await b.get('alice', path);
      expect([path, r.status]).toEqual([path, 200]);
      return r.body.map((o: { id: number }) => o.id);
    };
    expect(await ids(`${TRADE}/orders-history`)).toEqual([o4, o3, o2, o1]);
    expect(await ids(`${TRADE}/orders-history?CurrencyPair=ETH_USDT`)).toEqual([o4]);
    expect(await ids(`${TRADE}/orders-history?currencypair=BTC_USDT`)).toEqual([o3, o2, o1]);
    expect(await ids(`${TRADE}/orders-history?Statuses=10`)).toEqual([o2]);
    expect(await ids(`${TRADE}/orders-history?Statuses=30&Statuses=20`)).toEqual([o4, o3]);
    expect(await ids(`${TRADE}/orders-history?FuturesAccountId=${second}`)).toEqual([o3]);
    expect(await ids(`${TRADE}/orders-history?PageSize=2`)).toEqual([o4, o3]);
    expect(await ids(`${TRADE}/orders-history?Page=2&PageSize=2`)).toEqual([o2, o1]);
    expect(await ids(`${TRADE}/orders-history?page=3&pagesize=2`)).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    const past = new Date(Date.now() - 60_000).toISOString();
    expect(await ids(`${TRADE}/orders-history?DateFrom=${future}`)).toEqual([]);
    expect(await ids(`${TRADE}/orders-history?DateFrom=${past}&DateTo=${future}`)).toHaveLength(4);
    expect(await ids(`${TRADE}/orders-history?DateTo=${past}`)).toEqual([]);
    expect(await ids(`${TRADE}/positions`)).toEqual([o4, o1]);
    expect(await ids(`${TRADE}/positions?IsActive=true`)).toEqual([o1]);
    expect(await ids(`${TRADE}/positions?isactive=false`)).toEqual([o4]);
    expect(await ids(`${TRADE}/positions?IsActive=true&CurrencyPair=ETH_USDT`)).toEqual([]);
    expect(await ids(`${TRADE}/positions?FuturesAccountId=${second}`)).toEqual([]);
    expect(await ids(`${TRADE}/positions?DateFrom=${future}`)).toEqual([]);
    expect(await ids(`${TRADE}/positions?Page=1&PageSize=1`)).toEqual([o4]);
    expect(await ids(`${TRADE}/orders-history?FuturesAccountId=${bob}`)).toEqual([]);

    for (const q of ['Page=0', 'PageSize=0', 'PageSize=501', 'Statuses=11', 'DateFrom=yesterday', 'IsActive=maybe', 'Foo=1',
      `DateFrom=${future}&DateTo=${past}`]) {
      const path = q.startsWith('IsActive') ? 'positions' : 'orders-history';
      const r = await b.get('alice', `${TRADE}/${path}?${q}`);
      expect([q, r.status, r.body.error?.code]).toEqual([q, 400, 'VALIDATION_FAILED']);
    }
    expect((await request(b.app).get(`${TRADE}/positions`)).status).toBe(401);
  });

  it('reports every OpenAPI `FuturesOrder` field, with unrealized pnl, roe and percentages at the mark price', async () => {
    const long = await b.order('alice', alice, true, 100, 2, { takeProfit: 150, stopLoss: 80 });
    await b.order('bob', bob, false, null, 2);
    expect((await b.setIndex('BTC_USDT', 110)).status).toBe(200);
    const [rec] = (await b.get('alice', `${TRADE}/positions?IsActive=true`)).body;
    // OpenAPI `FuturesOrder`'s fields and two extensions, adlQuantile and markPrice (docs/futures.md)
    expect(Object.keys(rec).sort()).toEqual([
      'adlQuantile', 'amount', 'amountInPosition', 'clientOrderId', 'createTimestamp', 'currencyPairCode', 'currentMargin', 'fee',
      'feeAsset', 'filled', 'fundingFee', 'futuresOrderStatus', 'id', 'initialMargin', 'isLong', 'isMarket', 'leverage',
      'liquidationPrice', 'markPrice', 'price', 'realizedPnl', 'roe', 'stopLoss', 'takeProfit', 'totalPnlPercentage', 'unRealizedPnl',
      'unRealizedPnlPercentage', 'updateTimestamp',
    ]);
    expect(rec).toMatchObject({
      id: long, price: 100, amount: 2, takeProfit: 150, stopLoss: 80, realizedPnl: 0, leverage: 10, isLong: true,
      isMarket: false, liquidationPrice: 90.5, filled: 2, feeAsset: 'USDT', amountInPosition: 2, futuresOrderStatus: 50,
      fundingFee: 0, initialMargin: 20, currentMargin: 20, unRealizedPnl: 20, unRealizedPnlPercentage: 10, roe: 100,
      // the mark the index of 110 gives: what the unrealized pnl is valued at
      markPrice: 110,
    });
    expect(rec.fee).toBeCloseTo(0.04, 10);
    expect(rec.totalPnlPercentage).toBeCloseTo(((20 - 0.04) / 20) * 100, 4);
    expect(new Date(rec.createTimestamp).toISOString()).toBe(rec.createTimestamp);
    const acct = await b.account('alice', alice);
    expect(acct.equity).toBeCloseTo(acct.balance + 20, 8);
  });
});

describe('futures market data', () => {
  it('lists the futures pairs with every OpenAPI `FuturesPairInfo` field, the Cyrillic key included', async () => {
    const r = await request(b.app).get('/api/futures/exchange-data/pairs');
    expect(r.status).toBe(200);
    const btc = r.body.find((p: Record<string, unknown>) => p['\u0441urrencyPairCode'] === 'BTC_USDT');
    expect(Object.keys(btc)).toEqual([
      'id', '\u0441urrencyPairCode', 'isActive', 'basePricePrecision', 'quantityPrecision', 'quotePricePrecision',
      'contractValue', 'fundingRate', 'lotSize', 'fundingRateStartTimestamp', 'fundingRateFinishTimestamp',
      'makerFee', 'takerFee', 'maxLeverage', 'maintenanceMarginRate',
    ]);
    // the fee extensions are the pair's own rates
    const stored = await b.ctx.markets.store.getPair('futures', 'BTC_USDT');
    expect([btc.makerFee, btc.takerFee, btc.maxLeverage, btc.maintenanceMarginRate]).toEqual([
      stored!.makerFee, stored!.takerFee, stored!.maxLeverage, stored!.maintenanceMarginRate,
    ]);
    expect(btc.takerFee).toBeGreaterThan(0);
    expect(btc).toMatchObject({ isActive: true, basePricePrecision: 1, quantityPrecision: 4, quotePricePrecision: 8, contractValue: 1, lotSize: 0.0001, fundingRate: 0.0001 });
    expect(Date.parse(btc.fundingRateFinishTimestamp) - Date.parse(btc.fundingRateStartTimestamp)).toBe(28_800_000);
    expect(r.body.map((p: Record<string, unknown>) => p['\u0441urrencyPairCode']).sort()).toEqual(['BTC_USDT', 'ETH_USDT']);
    expect(r.body[0].currencyPairCode).toBeUndefined();
  });

  it('answers the order book of an unknown pair with 404', async () => {
    const r = await request(b.app).get(`${TRADE}/orderbook/NOPE_USDT`);
    expect([r.status, r.body.error.code]).toEqual([404, 'PAIR_NOT_FOUND']);
  });
});
