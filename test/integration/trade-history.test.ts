import request from 'supertest';
import type { Pair } from '../../src/domain/market';
import type { PlaceSpotInput } from '../../src/spot/spot-engine';
import { bearer } from '../support/harness';
import { parseEvents } from '../../src/platform/market-event';
import { futuresBed } from './futures/helpers';

/**
 * The trade history (issue 11, finding 2): every trade stays readable from every trade endpoint
 * and both feeds whatever the event stream's trimming did, is kept by time, and is read in pages.
 */
type Bed = Awaited<ReturnType<typeof futuresBed>>;
let b: Bed;
afterEach(async () => b?.ctx.cleanup());

const admin = bearer('ops', true);

async function deposit(user: string, currencyCode: string, amount: number) {
  const r = await request(b.app).post('/api/admin/deposits').set('Authorization', admin).send({ userId: user, currencyCode, amount });
  expect(r.status).toBe(200);
}

async function spot(user: string, side: 'buy' | 'sell', price: number, amount: number) {
  const r = await request(b.app).post('/api/orders').set('Authorization', bearer(user))
    .send({ currencyPairCode: 'BTC_USDT', side, type: 'limit', price, amount });
  expect(r.status).toBe(200);
  return r.body as { id: number };
}

/** Ids of the trade events still in a market's stream. */
async function tradeIdsInStream(kind: 'spot' | 'futures'): Promise<string[]> {
  const entries = await b.ctx.redis.xrange(b.ctx.keys.events(kind, 'BTC_USDT'), '-', '+');
  const ids: string[] = [];
  for (const [, fields] of entries) {
    const ev = fields[fields.indexOf('ev') + 1];
    for (const e of parseEvents(ev)) if (e.e === 'trade') ids.push(e.id);
  }
  return ids;
}

/** Follows `Link: rel="next"` from `path` and gathers every page's trade ids. */
async function allPages(path: string, ids: (body: never) => number[]): Promise<{ ids: number[]; pages: number }> {
  const out: number[] = [];
  let next: string | null = path;
  let pages = 0;
  while (next) {
    const r = await request(b.app).get(next);
    expect(r.status).toBe(200);
    out.push(...ids(r.body as never));
    pages++;
    const link = r.headers.link as string | undefined;
    next = link ? (/^<([^>]+)>; rel="next"$/.exec(link) as RegExpExecArray)[1] : null;
  }
  return { ids: out, pages };
}

const aIds = (body: { buy: { trade_id: number }[]; sell: { trade_id: number }[] }) =>
  [...body.buy, ...body.sell].map((t) => t.trade_id).sort((x, y) => y - x);

describe('trade history', () => {
  it('keeps every trade in every history endpoint and both feeds after the stream was trimmed', async () => {
    b = await futuresBed({ STREAM_MAXLEN: '1000', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' });
    for (const u of ['alice', 'bob']) {
      await deposit(u, 'USDT', 1_000_000);
      await deposit(u, 'BTC', 100);
    }
    // four spot trades and four futures deals
    for (let i = 0; i < 4; i++) {
      await spot('alice', 'buy', 100 + i, 0.5);
      await spot('bob', 'sell', 100 + i, 0.5);
    }
    const alice = await b.fundedAccount('alice');
    const bob = await b.fundedAccount('bob');
    for (let i = 0; i < 4; i++) {
      await b.order('alice', alice, true, 100, 0.1);
      await b.order('bob', bob, false, null, 0.1);
    }
    const spotIds = (await tradeIdsInStream('spot')).map(Number);
    const futuresIds = (await tradeIdsInStream('futures')).map(Number);
    expect([spotIds.length, futuresIds.length]).toEqual([4, 4]);

    // 1,300 placements and cancels on each market push the trades out of both streams
    for (let i = 0; i < 650; i++) {
      const o = await spot('alice', 'buy', 90, 0.1);
      const c = await request(b.app).delete(`/api/orders/${o.id}`).set('Authorization', bearer('alice'));
      expect(c.status).toBe(200);
      const f = await b.order('alice', alice, true, 90, 0.1);
      const fc = await b.put('alice', '/api/futures/trade/close', { orderId: f, isMarket: true });
      expect(fc.status).toBe(200);
    }
    expect(await tradeIdsInStream('spot')).toEqual([]);
    expect(await tradeIdsInStream('futures')).toEqual([]);

    const newestFirst = (ids: number[]) => [...ids].sort((x, y) => y - x);
    const trades = await request(b.app).get('/api/trades/BTC_USDT');
    expect(trades.body.map((t: { id: number }) => t.id)).toEqual(newestFirst(spotIds));
    for (const user of ['alice', 'bob']) {
      const mine = await request(b.app).get('/api/trades/BTC_USDT/user').set('Authorization', bearer(user));
      expect(mine.body.map((t: { id: number }) => t.id)).toEqual(newestFirst(spotIds));
    }
    const a = await request(b.app).get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=0');
    expect(aIds(a.body)).toEqual(newestFirst(spotIds));
    const aAll = await request(b.app).get('/api/marketdata/aggregator-a/historical_trades?limit=0');
    expect(aIds(aAll.body)).toEqual(newestFirst(spotIds));
    const bFeed = await request(b.app).get('/api/marketdata/getaggregatorb/trades/BTC_USDT');
    expect(bFeed.body.map((t: { trade_id: number }) => t.trade_id)).toEqual(newestFirst(spotIds));

    const deals = await request(b.app).get('/api/futures/deals');
    expect(deals.body.totalCount).toBe(4);
    expect(deals.body.items.map((d: { amount: number }) => d.amount)).toEqual([0.1, 0.1, 0.1, 0.1]);
    for (const user of ['alice', 'bob']) {
      const mine = await b.get(user, '/api/futures/deals/user');
      expect(mine.body.items.map((d: { id: number }) => d.id)).toEqual(newestFirst(futuresIds));
    }
  }, 180_000);

  it('keeps trades TRADE_HISTORY_DAYS by time, trimming records, time index and user index on write', async () => {
    b = await futuresBed();
    await b.ctx.marketData.history.setRetentionDays(1);
    const pair = (await b.ctx.markets.store.getPair('spot', 'BTC_USDT')) as Pair;
    for (const u of ['m', 't']) {
      await b.ctx.wallets.deposit(u, 'USDT', 100_000);
      await b.ctx.wallets.deposit(u, 'BTC', 100);
    }
    const now = Date.now();
    const order = (userId: string, side: 'buy' | 'sell', timestamp: number): PlaceSpotInput => ({
      userId, pair, side, type: 'limit', priceTicks: '10000', amountLots: '100', postOnly: false, stp: 'NONE', clientOrderId: null, timestamp,
    });
    const trade = async (ts: number) => {
      await b.ctx.spot.engine.place(order('m', 'sell', ts));
      await b.ctx.spot.engine.place(order('t', 'buy', ts));
    };
    const DAY = 24 * 3600 * 1000;
    await trade(now - 3 * DAY);
    await trade(now - 2 * DAY);
    // a clock behind the last trade's: the history keeps time order
    await trade(now - 2 * DAY - 5000);
    const before = await request(b.app).get('/api/trades/BTC_USDT');
    expect(before.body).toHaveLength(3);
    expect(new Date(before.body[0].timestamp).getTime()).toBe(new Date(before.body[1].timestamp).getTime());

    await trade(now);
    const after = await request(b.app).get('/api/trades/BTC_USDT');
    expect(after.body.map((t: { timestamp: string }) => new Date(t.timestamp).getTime())).toEqual([now]);
    const k = b.ctx.keys;
    expect(await b.ctx.redis.zcard(k.tradeHistory('spot', 'BTC_USDT'))).toBe(1);
    expect(await b.ctx.redis.zcard(k.tradeTimes('spot', 'BTC_USDT'))).toBe(1);
    expect(await b.ctx.redis.zcard(k.userTrades('spot', 'BTC_USDT', 't'))).toBe(1);
    expect(await b.ctx.redis.zcard(k.userTrades('spot', 'BTC_USDT', 'm'))).toBe(1);
    // the 24 h feed of B and the date filter of A agree
    const bFeed = await request(b.app).get('/api/marketdata/getaggregatorb/trades/BTC_USDT');
    expect(bFeed.body).toHaveLength(1);
    const a = await request(b.app).get(`/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&start_time=${now + 1}`);
    expect(aIds(a.body)).toEqual([]);
  });

  it('reads in bounded pages that together hold every trade exactly once', async () => {
    b = await futuresBed();
    const pair = (await b.ctx.markets.store.getPair('spot', 'BTC_USDT')) as Pair;
    await b.ctx.wallets.deposit('m', 'BTC', 100);
    await b.ctx.wallets.deposit('t', 'USDT', 1_000_000);
    const base = { pair, type: 'limit' as const, postOnly: false, stp: 'NONE' as const, clientOrderId: null, timestamp: Date.now() };
    await b.ctx.spot.engine.place({ ...base, userId: 'm', side: 'sell', priceTicks: '10000', amountLots: '100000' });
    // 2,300 trades in three batches of takers (one command each)
    for (const n of [1000, 1000, 300]) {
      const takers: PlaceSpotInput[] = Array.from({ length: n }, () => ({ ...base, userId: 't', side: 'buy', priceTicks: '10000', amountLots: '1' }));
      await b.ctx.scripts.run('placeSpotOrders', ...b.ctx.spot.engine.placeArgs(takers));
    }
    const everything = (await b.ctx.redis.zrange(b.ctx.keys.tradeHistory('spot', 'BTC_USDT'), '0', '-1')).map((m) => Number(m.split('|')[0]));
    expect(everything).toHaveLength(2300);
    const newest = [...everything].sort((x, y) => y - x);
    // each side's user index holds every trade once
    for (const [u, role] of [['m', 'm'], ['t', 't']]) {
      const members = await b.ctx.redis.zrange(b.ctx.keys.userTrades('spot', 'BTC_USDT', u), '0', '-1');
      expect(members).toEqual([...newest].reverse().map((id) => `${id}:${role}`));
    }

    const a = await allPages('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=0', aIds);
    expect(a).toEqual({ ids: newest, pages: 3 });
    const bFeed = await allPages('/api/marketdata/getaggregatorb/trades/BTC_USDT', (body: { trade_id: number }[]) => body.map((t) => t.trade_id));
    expect(bFeed).toEqual({ ids: newest, pages: 3 });
    // a side filter reads at most its budget per request and still reaches everything
    const sells = await request(b.app).get('/api/marketdata/aggregator-a/historical_trades?ticker_id=BTC_USDT&limit=5&type=sell');
    expect(sells.body).toEqual({ buy: [], sell: [] });
    expect(sells.headers.link).toBeUndefined();

    // /api/trades pages by beforeId
    const first = await request(b.app).get('/api/trades/BTC_USDT?limit=1000');
    const second = await request(b.app).get(`/api/trades/BTC_USDT?limit=1000&beforeId=${first.body[999].id}`);
    expect([...first.body, ...second.body].map((t: { id: number }) => t.id)).toEqual(newest.slice(0, 2000));
    const mine = await request(b.app).get('/api/trades/BTC_USDT/user?limit=1000').set('Authorization', bearer('t'));
    expect(mine.body.map((t: { id: number }) => t.id)).toEqual(newest.slice(0, 1000));
    // the maker's fills page on by beforeId to the oldest, each once
    const makerIds: number[] = [];
    for (let before = ''; ; ) {
      const r = await request(b.app).get(`/api/trades/BTC_USDT/user?limit=1000${before}`).set('Authorization', bearer('m'));
      if (r.body.length === 0) break;
      makerIds.push(...r.body.map((t: { id: number; takerOrMaker: string }) => (t.takerOrMaker === 'maker' ? t.id : -1)));
      before = `&beforeId=${r.body[r.body.length - 1].id}`;
    }
    expect(makerIds).toEqual(newest);

    for (const q of ['limit=1001', 'beforeId=0', 'beforeId=x']) {
      expect((await request(b.app).get(`/api/trades/BTC_USDT?${q}`)).status).toBe(400);
    }
    for (const q of ['limit=10001', 'before_id=0']) {
      expect((await request(b.app).get(`/api/marketdata/aggregator-a/historical_trades?${q}`)).status).toBe(400);
    }
    expect((await request(b.app).get('/api/marketdata/getaggregatorb/trades/BTC_USDT?before_id=-1')).status).toBe(400);
  });

  it('pages futures deals of several markets by position, each deal once', async () => {
    b = await futuresBed();
    const alice = await b.fundedAccount('alice');
    const bob = await b.fundedAccount('bob');
    for (let i = 0; i < 5; i++) {
      for (const [pair, price, amount] of [['BTC_USDT', 100, 0.1], ['ETH_USDT', 2000, 0.01]] as const) {
        await b.order('alice', alice, true, price, amount, { currencyPairCode: pair });
        await b.order('bob', bob, false, null, amount, { currencyPairCode: pair });
      }
    }
    const all = await b.get('alice', '/api/futures/deals/user?PageSize=500');
    expect(all.body.totalCount).toBe(10);
    const ids = all.body.items.map((d: { id: number }) => d.id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => y - x));
    for (const size of [1, 3, 4]) {
      const paged: number[] = [];
      const market: string[] = [];
      for (let page = 1; page <= Math.ceil(10 / size); page++) {
        const r = await b.get('alice', `/api/futures/deals/user?PageSize=${size}&Page=${page}`);
        paged.push(...r.body.items.map((d: { id: number }) => d.id));
        const m = await request(b.app).get(`/api/futures/deals?PageSize=${size}&Page=${page}`);
        market.push(...m.body.items.map((d: { currencyPairCode: string; price: number }) => `${d.currencyPairCode}@${d.price}`));
      }
      expect(paged).toEqual(ids);
      // one market alone is read by rank
      const btc: number[] = [];
      for (let page = 1; page <= Math.ceil(5 / size); page++) {
        const r = await b.get('alice', `/api/futures/deals/user?CurrencyPair=BTC_USDT&PageSize=${size}&Page=${page}`);
        btc.push(...r.body.items.map((d: { id: number }) => d.id));
      }
      expect(btc).toEqual(all.body.items.filter((d: { currencyPairCode: string }) => d.currencyPairCode === 'BTC_USDT').map((d: { id: number }) => d.id));
      expect(market).toEqual(all.body.items.map((d: { currencyPairCode: string; price: number }) => `${d.currencyPairCode}@${d.price}`));
    }
    const beyond = await request(b.app).get('/api/futures/deals?PageSize=5&Page=3');
    expect(beyond.body).toEqual({ totalCount: 10, items: [] });
  });

  it("writes each trade's stream event as its history record, packed (docs/events.md)", async () => {
    b = await futuresBed();
    const alice = await b.fundedAccount('alice');
    const bob = await b.fundedAccount('bob');
    await b.order('alice', alice, true, 100, 0.2);
    await b.order('bob', bob, false, null, 0.1);
    await b.order('bob', bob, false, null, 0.1);
    const records = await b.ctx.redis.zrange(b.ctx.keys.tradeHistory('futures', 'BTC_USDT'), '0', '-1');
    expect(records).toHaveLength(2);
    const packed: string[] = [];
    for (const [, fields] of await b.ctx.redis.xrange(b.ctx.keys.events('futures', 'BTC_USDT'), '-', '+')) {
      for (const e of JSON.parse(fields[fields.indexOf('ev') + 1]) as unknown[]) {
        if (typeof e === 'string' && e.startsWith('trade|')) packed.push(e);
      }
    }
    // the record, then the open quantities after the fill: alice's position grows, bob's opens
    expect(packed).toHaveLength(2);
    packed.forEach((e, i) => {
      const parts = e.split('|');
      expect(parts.slice(1, -2).join('|')).toBe(records[i]);
      const ev = parseEvents(JSON.stringify([e]))[0];
      expect(ev.tu).toBe('bob');
      expect(ev.id).toBe(records[i].split('|')[0]);
      expect(ev).not.toHaveProperty('ts');
    });
    const pair = (await b.ctx.markets.store.getPair('futures', 'BTC_USDT')) as Pair;
    const lots = (amount: number) => String(Math.round(amount * 10 ** pair.digitsAmount));
    expect(packed.map((e) => e.split('|').slice(-2))).toEqual([[lots(0.1), lots(0.1)], [lots(0.1), lots(0.2)]]);
  });
});
