import request from 'supertest';
import type { Express } from 'express';
import { PairAnnouncements, type PairAnnouncement } from '../../../src/markets';
import { createRedis } from '../../../src/platform/redis/connection';
import { startWsRole } from '../../../src/transport/ws/ws-role';
import { startWorkerRole } from '../../../src/transport/workers/worker-role';
import { bearer, createApp, testContext } from '../../support/harness';
import { bookFrom, WsClient } from '../../support/ws-client';

/**
 * A pair created at run time announces itself on the markets stream, and the gateway and the
 * dispatcher pick it up at once. Their periodic refresh is set to a minute here, so only the
 * announcement (or, for a subscribe, asking the store) can explain a prompt pickup.
 */
type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: Express;
let gw: { port: number; close(): Promise<void> };
const clients: WsClient[] = [];
const admin = bearer('ops', true);
const REFRESH_RARELY = { refreshPairsMs: 60_000 };

const post = (path: string, body: object) => request(app).post(path).set('Authorization', admin).send(body);

/** A spot pair BASE_USDT made through the admin endpoint (its base currency first). */
async function createSpotPair(base: string): Promise<void> {
  expect((await post('/api/admin/currencies', { code: base, name: base, decimals: 8 })).status).toBe(200);
  const r = await post('/api/admin/pairs', spotPair(base));
  expect(r.status).toBe(200);
}

const spotPair = (base: string) => ({
  kind: 'spot' as const, baseCurrencyCode: base, quoteCurrencyCode: 'USDT', digitsPrice: 2, digitsAmount: 4,
  minBaseAmount: 0.001, minQuoteAmount: 1, makerFee: 0.001, takerFee: 0.002,
});

const place = (user: string, pair: string, side: 'buy' | 'sell', price: number, amount: number) =>
  ctx.spot.orders.place(user, { currencyPairCode: pair, side, type: 'limit', price, amount });

async function client(): Promise<WsClient> {
  const c = await WsClient.connect(gw.port);
  clients.push(c);
  return c;
}

async function waitFor(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

beforeAll(async () => {
  ctx = await testContext();
  app = createApp(ctx);
  gw = await startWsRole(ctx, { port: 0, ...REFRESH_RARELY });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await gw.close();
  await ctx.cleanup();
});

describe('pair announcements', () => {
  it('a reader of the markets stream is handed each pair created after its position, once', async () => {
    const conn = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true, name: 'test-markets' });
    const seen: PairAnnouncement[] = [];
    const key = ctx.keys.marketsStream();
    const reader = new PairAnnouncements(conn, key, async (a) => void seen.push(a), ctx.log);
    reader.start(await PairAnnouncements.position(ctx.redis, key));
    try {
      await createSpotPair('XRP');
      expect((await post('/api/admin/pairs', spotPair('XRP'))).status).toBe(409); // exists: no second announcement
      await waitFor(async () => seen.length > 0);
      const pair = await ctx.markets.store.getPair('spot', 'XRP_USDT');
      expect(seen).toEqual([{ kind: 'spot', code: 'XRP_USDT', id: pair!.id }]);
    } finally {
      await reader.stop();
    }
  });

  it('the gateway: a subscribe sent 100 ms after the pair is created gets a snapshot', async () => {
    const created = Date.now();
    await createSpotPair('SOL');
    await ctx.wallets.deposit('maker', 'SOL', 10);
    await place('maker', 'SOL_USDT', 'sell', 150, 2);
    await new Promise((r) => setTimeout(r, Math.max(0, created + 100 - Date.now())));
    const c = await client();
    c.send({ op: 'subscribe', channel: 'orderbook', market: 'SOL_USDT', kind: 'spot' });
    const snap = await c.waitFor((m) => m.type === 'snapshot' || m.op === 'error');
    expect(snap).toMatchObject({ channel: 'orderbook', type: 'snapshot', market: 'SOL_USDT', bids: [] });
    // the snapshot and the updates after it hold the book the REST endpoint gives
    const rest = (await request(app).get('/api/orderbook/SOL_USDT')).body;
    expect(rest.asks).toEqual([{ price: 150, quantity: 2 }]);
    await c.waitFor((m) => m.channel === 'orderbook' && m.seq === rest.seq);
    expect(bookFrom(c.messages, 'SOL_USDT')).toMatchObject({ seq: rest.seq, bids: rest.bids, asks: rest.asks });
  });

  it('the gateway asks the store about a market it has not seen before refusing it', async () => {
    // created without an announcement, as if this gateway had missed it
    const quiet = jest.spyOn(ctx.keys, 'marketsStream').mockReturnValue(`${ctx.keys.engine}elsewhere`);
    try {
      expect((await post('/api/admin/currencies', { code: 'ADA', name: 'ADA', decimals: 8 })).status).toBe(200);
      expect((await ctx.markets.service.createPair(spotPair('ADA'))).created).toBe(true);
    } finally {
      quiet.mockRestore();
    }
    const c = await client();
    c.send({ op: 'subscribe', channel: 'orderbook', market: 'ADA_USDT', kind: 'spot' });
    expect(await c.waitFor((m) => m.type === 'snapshot' || m.op === 'error')).toMatchObject({
      type: 'snapshot', market: 'ADA_USDT', bids: [], asks: [],
    });
    c.send({ op: 'subscribe', channel: 'orderbook', market: 'NOPE_USDT', kind: 'spot' });
    expect(await c.waitFor((m) => m.op === 'error')).toMatchObject({ message: 'unknown spot market NOPE_USDT' });
  });

  it("the dispatcher hands on a new pair's first trade (its candle appears) without waiting for a refresh", async () => {
    const worker = await startWorkerRole(ctx, REFRESH_RARELY);
    try {
      await createSpotPair('TRX');
      await ctx.wallets.deposit('maker', 'TRX', 100);
      await ctx.wallets.deposit('taker', 'USDT', 1_000);
      await place('maker', 'TRX_USDT', 'sell', 0.25, 40);
      expect((await place('taker', 'TRX_USDT', 'buy', 0.25, 40)).order.status).toBe('filled');
      const candles = () =>
        request(app).get('/api/futures/exchange-data/candles').query({ CurrencyPair: 'TRX_USDT', Kind: 'spot', CandleTimePeriod: 60 });
      await waitFor(async () => (await candles()).body.length > 0);
      const [candle] = (await candles()).body;
      expect(candle).toMatchObject({ openPrice: 0.25, closePrice: 0.25, volumeBase: 40, volume: 10 });
    } finally {
      await worker.close();
    }
  });
});
