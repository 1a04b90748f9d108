import { CandleService } from '../../../src/market-data';
import { startWsRole } from '../../../src/transport/ws/ws-role';
import { testContext } from '../../support/harness';
import { WsClient } from '../../support/ws-client';
import { storeWithShards } from '../../support/shard-store';

/**
 * The gateway reads each market from its engine shard: ETH_USDT is said to run on shard 2 (the
 * store below answers so; pair creation is what fixes it in production), and its deals and
 * candles reach subscribers from shard 2's event and candle streams, nothing from shard 0's. On
 * the cluster run those streams sit on other slots (and masters) than shard 0's: one tail for
 * both would be a CROSSSLOT error.
 */
const MARKET = 'ETH_USDT';
const SHARD = 2;

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let gw: { port: number; close(): Promise<void> };
let client: WsClient;
let candles: CandleService;

beforeAll(async () => {
  ctx = await testContext({ ENGINE_SHARDS: '3' });
  const store = storeWithShards(ctx.markets.store, { [MARKET]: SHARD });
  candles = new CandleService(ctx.redis, ctx.shards, ctx.scripts, store);
  gw = await startWsRole({ ...ctx, markets: { ...ctx.markets, store } }, { port: 0 });
  client = await WsClient.connect(gw.port);
});
afterAll(async () => {
  client?.close();
  await gw?.close();
  await ctx.cleanup();
});

it("publishes a shard's deals and candles from that shard's streams only", async () => {
  for (const channel of ['deals', 'candles']) {
    client.send({ op: 'subscribe', channel, market: MARKET, kind: 'spot', ...(channel === 'candles' ? { period: 60 } : {}) });
  }
  await client.waitFor(() => client.messages.filter((m) => m.op === 'subscribed').length === 2);
  const ts = Date.now();
  const trade = (id: string) => JSON.stringify([{ e: 'trade', id, p: '300000', q: '1000', side: 'buy' }]);
  // the same market's stream under shard 0's tag is not where it runs: nothing of it is published
  await ctx.redis.xadd(ctx.shards.keys(0).events('spot', MARKET), '*', 'ts', String(ts), 'ev', trade('111'));
  await ctx.redis.xadd(ctx.shards.keys(SHARD).events('spot', MARKET), '*', 'ts', String(ts), 'ev', trade('222'));
  const deal = await client.waitFor((m) => !m.op && m.channel === 'deals');
  expect(deal).toMatchObject({ market: MARKET, deals: [{ id: 222, price: 3000, amount: 0.1, side: 'buy' }] });

  // the candle fold writes the shard's candle keys and update stream; the shard's candle tail reads it
  expect(await candles.apply('spot', MARKET, { id: `${ts}-0`, ts, events: [{ e: 'trade', id: '222', p: '300000', q: '1000', side: 'buy' }] })).toBe(true);
  expect(await ctx.redis.xlen(ctx.shards.keys(SHARD).candleEvents('spot', MARKET))).toBe(1);
  expect(await ctx.redis.exists(ctx.shards.keys(0).candleEvents('spot', MARKET))).toBe(0);
  const candle = await client.waitFor((m) => !m.op && m.channel === 'candles');
  expect(candle).toMatchObject({ market: MARKET, period: 60, candle: { openPrice: 3000, volumeBase: 0.1 } });
  // one deal message in all: the shard-0 entry was never read
  await new Promise((r) => setTimeout(r, 300));
  expect(client.messages.filter((m) => !m.op && m.channel === 'deals')).toHaveLength(1);
});
