import request from 'supertest';
import type WebSocket from 'ws';
import type { Express } from 'express';
import { startWsRole } from '../../../src/transport/ws/ws-role';
import { parseEvents } from '../../../src/platform/market-event';
import { createApp, testContext } from '../../support/harness';
import { fundTraders, randomTrading, rng } from '../../support/random-trading';
import { bookFrom, WsClient, type Msg } from '../../support/ws-client';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;
let gw1: { port: number; close(): Promise<void> };
let gw2: { port: number; close(): Promise<void> };
const clients: WsClient[] = [];

async function client(port: number, options?: WebSocket.ClientOptions): Promise<WsClient> {
  const c = await WsClient.connect(port, options);
  clients.push(c);
  return c;
}

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function restBook(pair: string) {
  const r = await request(app).get(`/api/orderbook/${pair}`).query({ depth: 1000 });
  expect(r.status).toBe(200);
  return r.body as { seq: number; bids: unknown[]; asks: unknown[] };
}

/** Every trade id in the market's stream, in stream order: what deal subscribers must see. */
async function streamTradeIds(pair: string): Promise<number[]> {
  // the market's own shard: with ENGINE_SHARDS=3 a pair may live on any of them
  const market = (await ctx.markets.store.getPair('spot', pair))!;
  const entries = await ctx.redis.xrange(ctx.shards.keysOf(market).events('spot', pair), '-', '+');
  return entries.flatMap(([, f]) => {
    const ev = parseEvents(f[f.indexOf('ev') + 1]);
    return ev.filter((e) => e.e === 'trade').map((e) => Number(e.id));
  });
}

const data = (messages: Msg[], channel: string) => messages.filter((m) => !m.op && m.channel === channel);

const dealIds = (messages: Msg[]) =>
  data(messages, 'deals').flatMap((m) => (m.deals as { id: number }[]).map((d) => d.id));

const updates = (messages: Msg[]) => data(messages, 'orderbook').filter((m) => m.type === 'update');

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  await fundTraders(ctx, 'BTC', 'USDT');
  await fundTraders(ctx, 'ETH', 'USDT');
  gw1 = await startWsRole(ctx, { port: 0 });
  gw2 = await startWsRole(ctx, { port: 0 });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await gw1.close();
  await gw2.close();
  await ctx.cleanup();
});

describe('websocket gateway', () => {
  it('a client that subscribes mid-stream and applies every diff holds the book GET returns', async () => {
    const random = rng(20261122);
    // an earlier subscriber keeps the gateway publishing, so updates are in flight when `c` joins
    const early = await client(gw1.port);
    early.send({ op: 'subscribe', channel: 'orderbook', market: 'BTC_USDT', kind: 'spot' });
    await early.waitFor((m) => m.type === 'snapshot');
    await randomTrading(ctx, 'BTC_USDT', 100, random);
    const c = await client(gw1.port);
    // subscribe while commands keep coming, so the snapshot lands between updates in flight
    const trading = randomTrading(ctx, 'BTC_USDT', 400, random);
    await new Promise((r) => setTimeout(r, 150));
    c.send({ op: 'subscribe', channel: 'orderbook', market: 'BTC_USDT', kind: 'spot' });
    const snap = await c.waitFor((m) => m.type === 'snapshot');
    await trading;
    expect(snap.seq).toBeGreaterThan(100);

    const rest = await restBook('BTC_USDT');
    await c.waitFor((m) => !m.op && m.channel === 'orderbook' && m.seq === rest.seq);
    const book = bookFrom(c.messages, 'BTC_USDT');
    expect(book.seq).toBe(rest.seq);
    // seq rose by exactly one per update (bookFrom throws on a gap), through hundreds of them
    expect(book.seqs.length).toBeGreaterThan(150);
    expect(rest.seq - (snap.seq as number)).toBeGreaterThan(150);
    expect({ bids: book.bids, asks: book.asks }).toEqual({ bids: rest.bids, asks: rest.asks });
    await early.waitFor((m) => !m.op && m.channel === 'orderbook' && m.seq === rest.seq);
    expect(bookFrom(early.messages, 'BTC_USDT')).toMatchObject({
      seq: rest.seq,
      bids: rest.bids,
      asks: rest.asks,
    });
    expect(rest.bids.length + rest.asks.length).toBeGreaterThan(5);
  });

  it('a burst of subscribes while trading: each client gets its snapshot, then every update after it, and its answers in order', async () => {
    const random = rng(20261128);
    const spot = { market: 'BTC_USDT', kind: 'spot' };
    // an earlier subscriber keeps the gateway publishing, so a batch is waiting when frames come
    const early = await client(gw1.port);
    early.send({ op: 'subscribe', channel: 'orderbook', ...spot });
    await early.waitFor((m) => m.type === 'snapshot');
    const burst = await Promise.all(Array.from({ length: 20 }, () => client(gw1.port)));
    const trading = randomTrading(ctx, 'BTC_USDT', 300, random);
    await new Promise((r) => setTimeout(r, 100));
    for (const c of burst) {
      c.send({ op: 'subscribe', channel: 'orderbook', ...spot });
      c.send({ op: 'subscribe', channel: 'ticker', ...spot });
      c.send({ op: 'unsubscribe', channel: 'ticker', ...spot });
    }
    await trading;
    const rest = await restBook('BTC_USDT');
    for (const c of burst) {
      await c.waitFor((m) => !m.op && m.channel === 'orderbook' && m.seq === rest.seq);
      // bookFrom throws on a gap: the snapshot and the updates after it meet exactly
      expect(bookFrom(c.messages, 'BTC_USDT')).toMatchObject({ seq: rest.seq, bids: rest.bids, asks: rest.asks });
      expect(c.messages.filter((m) => m.op).map((m) => `${String(m.op)} ${String(m.channel)}`)).toEqual([
        'subscribed orderbook',
        'subscribed ticker',
        'unsubscribed ticker',
      ]);
    }
  });

  it('a deals subscriber receives every deal once, in order, and two gateways deliver the same sequence', async () => {
    const a = await client(gw1.port);
    const b = await client(gw2.port);
    for (const c of [a, b]) {
      c.send({ op: 'subscribe', channel: 'deals', market: 'ETH_USDT', kind: 'spot' });
      c.send({ op: 'subscribe', channel: 'orderbook', market: 'ETH_USDT', kind: 'spot' });
      await c.waitFor((m) => m.type === 'snapshot');
    }
    await randomTrading(ctx, 'ETH_USDT', 300, rng(7));
    const expected = await streamTradeIds('ETH_USDT');
    expect(expected.length).toBeGreaterThan(50);
    const lastId = expected[expected.length - 1];
    const rest = await restBook('ETH_USDT');
    for (const c of [a, b]) {
      await c.waitFor(
        (m) => !m.op && m.channel === 'deals' && (m.deals as { id: number }[]).some((d) => d.id === lastId),
      );
      await c.waitFor((m) => !m.op && m.channel === 'orderbook' && m.seq === rest.seq);
      expect(dealIds(c.messages)).toEqual(expected);
    }
    expect(updates(a.messages)).toEqual(updates(b.messages));
    expect(data(a.messages, 'deals')).toEqual(data(b.messages, 'deals'));
    expect(bookFrom(b.messages, 'ETH_USDT')).toMatchObject({
      seq: rest.seq,
      bids: rest.bids,
      asks: rest.asks,
    });
  });

  it('answers bad requests with a clear error and keeps the connection', async () => {
    const c = await client(gw1.port);
    const cases: [unknown, RegExp][] = [
      ['not json', /not JSON/],
      [{ op: 'buy', channel: 'deals', market: 'BTC_USDT' }, /"op" must be one of \[subscribe, unsubscribe\]/],
      [{ op: 'subscribe', channel: 'orders', market: 'BTC_USDT' }, /"channel" must be one of/],
      [{ op: 'subscribe', channel: 'deals', market: 'DOGE_USDT' }, /unknown spot market DOGE_USDT/],
      [
        { op: 'subscribe', channel: 'deals', market: 'BTC_USDT', kind: 'margin' },
        /"kind" must be one of \[spot, futures\]/,
      ],
      [{ op: 'subscribe', channel: 'candles', market: 'BTC_USDT', period: 61 }, /"period" must be one of/],
      [{ op: 'subscribe', channel: 'deals', market: 'BTC_USDT', period: 60 }, /"period" is not allowed/],
      [
        { op: 'unsubscribe', channel: 'ticker', market: 'BTC_USDT' },
        /not subscribed to ticker of spot BTC_USDT/,
      ],
    ];
    for (const [body, message] of cases) {
      const from = c.messages.length;
      c.send(body);
      const m = await c.waitFor(() => true, 5000, from);
      expect(m.op).toBe('error');
      expect(String(m.message)).toMatch(message);
    }
    c.send({ op: 'subscribe', channel: 'ticker', market: 'BTC_USDT', kind: 'spot' });
    const ticker = await c.waitFor((m) => !m.op && m.channel === 'ticker');
    const rest = await restBook('BTC_USDT');
    const best = (l: unknown) => {
      const { price, quantity } = l as { price: number; quantity: number };
      return [price, quantity];
    };
    const lastTrade = (await ctx.marketData.service.recentTrades('BTC_USDT', 1))[0];
    expect(ticker).toMatchObject({
      market: 'BTC_USDT',
      kind: 'spot',
      last: lastTrade.price,
      bestBid: best(rest.bids[0]),
      bestAsk: best(rest.asks[0]),
    });
    expect(c.closed).toBe(false);
  });

  it('pushes candle updates of the subscribed period, and unsubscribe stops them', async () => {
    const c = await client(gw2.port);
    c.send({ op: 'subscribe', channel: 'candles', market: 'BTC_USDT.TRC20', kind: 'spot', period: 300 });
    await c.waitFor((m) => m.op === 'subscribed');
    const ts = Date.now();
    await ctx.marketData.candles.apply('spot', 'BTC_USDT.TRC20', {
      id: `${ts}-0`,
      ts,
      events: [{ e: 'trade', id: '999999', p: '12345', q: '2000000', side: 'buy' }],
    });
    const m = await c.waitFor((x) => !x.op && x.channel === 'candles');
    expect(m).toMatchObject({
      market: 'BTC_USDT.TRC20',
      period: 300,
      candle: { openPrice: 123.45, volumeBase: 2, candleTimePeriod: 300 },
    });
    c.send({ op: 'unsubscribe', channel: 'candles', market: 'BTC_USDT.TRC20', kind: 'spot', period: 300 });
    await c.waitFor((x) => x.op === 'unsubscribed');
  });

  it('drops a client that stops reading, without holding up the others', async () => {
    const market = 'BTC_USDT.TRC20';
    await fundTraders(ctx, 'BTC', 'USDT.TRC20');
    for (let i = 1; i <= 100; i++) {
      await ctx.spot.orders.place('t1', {
        currencyPairCode: market,
        side: 'buy',
        type: 'limit',
        price: 100 - i / 10,
        amount: 0.5,
      });
      await ctx.spot.orders.place('t2', {
        currencyPairCode: market,
        side: 'sell',
        type: 'limit',
        price: 100 + i / 10,
        amount: 0.5,
      });
    }
    const gw = await startWsRole(ctx, { port: 0, maxBackpressure: 64 * 1024 });
    try {
      const slow = await client(gw.port);
      const fast = await client(gw.port);
      for (const c of [slow, fast]) {
        c.send({ op: 'subscribe', channel: 'orderbook', market, kind: 'spot' });
        await c.waitFor((m) => m.type === 'snapshot');
      }
      const snapshotBytes = JSON.stringify(slow.messages.find((m) => m.type === 'snapshot')).length;
      // The slow client stops reading and keeps asking for snapshots: what it is owed piles up on
      // the server once the kernel's socket buffers are full, until the 64 KiB allowance is passed.
      slow.socket.pause();
      const askFor = Math.ceil((12 * 1024 * 1024) / snapshotBytes);
      for (let i = 0; i < askFor; i++)
        slow.send({ op: 'subscribe', channel: 'orderbook', market, kind: 'spot' });
      await randomTrading(ctx, market, 50, rng(3));
      const rest = await restBook(market);
      await fast.waitFor((m) => !m.op && m.channel === 'orderbook' && m.seq === rest.seq);
      expect(bookFrom(fast.messages, market)).toMatchObject({
        seq: rest.seq,
        bids: rest.bids,
        asks: rest.asks,
      });
      slow.socket.resume();
      await until(() => slow.closed);
      // it was cut off: far fewer snapshots reached it than it asked for
      expect(slow.messages.filter((m) => m.type === 'snapshot').length).toBeLessThan(askFor / 2);
      expect(fast.closed).toBe(false);
    } finally {
      await gw.close();
    }
  });

  it('pings idle clients: one that answers stays, one that never answers is dropped', async () => {
    const gw = await startWsRole(ctx, { port: 0, idleTimeoutSec: 8 });
    try {
      const answering = await client(gw.port);
      const silent = await client(gw.port, { autoPong: false });
      let pings = 0;
      answering.socket.on('ping', () => pings++);
      await until(() => silent.closed, 14_000);
      expect(pings).toBeGreaterThan(0);
      expect(answering.closed).toBe(false);
    } finally {
      await gw.close();
    }
  });

  it("a disconnect leaves the client's orders alone", async () => {
    const { order } = await ctx.spot.orders.place('t1', {
      currencyPairCode: 'BTC_USDT',
      side: 'buy',
      type: 'limit',
      price: 50,
      amount: 1,
    });
    const c = await client(gw1.port);
    c.send({ op: 'subscribe', channel: 'orderbook', market: 'BTC_USDT', kind: 'spot' });
    await c.waitFor((m) => m.type === 'snapshot');
    c.close();
    await new Promise((r) => setTimeout(r, 200));
    expect((await ctx.spot.orders.get('t1', String(order.id))).status).toBe('open');
  });
});
