import type { Queue } from 'bullmq';
import { createRedis } from '../../../src/platform/redis/connection';
import { openQueue, streamJobId, type StreamJob } from '../../../src/platform/queues';
import { moveLegacyCandles } from '../../../src/market-data';
import { ShardDispatchReader } from '../../../src/transport/workers/shard-dispatch-reader';
import { DISPATCHER_DEFAULTS, EventDispatcher } from '../../../src/transport/workers/event-dispatcher';
import { testContext } from '../../support/harness';
import { storeWithShards } from '../../support/shard-store';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
beforeAll(async () => {
  ctx = await testContext({ ENGINE_SHARDS: '3' });
});
afterAll(async () => ctx.cleanup());

async function until<T>(probe: () => Promise<T | undefined | null>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a shard's dispatch reader", () => {
  it("hands its shard's stream entries to that shard's queue only, the shard in the job", async () => {
    const connection = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true, name: 'shard-dispatch-test' });
    const queues: Queue<StreamJob>[] = ctx.shards.all().map((k) => openQueue(ctx.keys, connection, 'candles', k.shard));
    const routes = [{ queue: 'candles', kinds: ['spot' as const], events: ['trade'] }];
    const reader = new ShardDispatchReader(ctx, 2, 'test-consumer', routes, queues, { ...DISPATCHER_DEFAULTS, blockMs: 100 }, async () => undefined);
    try {
      await reader.follow('spot', 'SHRD_USDT');
      reader.start();
      const stream = ctx.shards.keys(2).events('spot', 'SHRD_USDT');
      const ev = JSON.stringify([{ e: 'trade', id: '7', p: '100', q: '3', side: 'buy' }]);
      const id = await ctx.redis.xadd(stream, '*', 'ts', '1700000000000', 'ev', ev);
      const job = await until(() => queues[2].getJob(streamJobId('spot', 'SHRD_USDT', id!)));
      expect(job.data).toMatchObject({ kind: 'spot', pair: 'SHRD_USDT', entryId: id, shard: 2, events: [{ e: 'trade', id: '7' }] });
      expect(queues[2].name).toBe('{candles.s2}');
      // acknowledged once queued; shards 0 and 1 were handed nothing
      await until(async () => (((await ctx.redis.xpending(stream, 'dispatch')) as [number])[0] === 0 ? true : undefined));
      expect(await queues[0].getJobCounts('waiting', 'active', 'completed')).toEqual({ waiting: 0, active: 0, completed: 0 });
      expect(await queues[1].getJobCounts('waiting', 'active', 'completed')).toEqual({ waiting: 0, active: 0, completed: 0 });
    } finally {
      await reader.stop();
      await Promise.all(queues.map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    }
  });

  it('refuses to start without a queue of its shard for every route', () => {
    const routes = [{ queue: 'candles', kinds: ['spot' as const] }];
    expect(() => new ShardDispatchReader(ctx, 1, 'c', routes, [], DISPATCHER_DEFAULTS, async () => undefined)).toThrow(
      'no queue {candles.s1} for engine shard 1',
    );
  });
});

describe('the dispatcher', () => {
  it("gives each market to its shard's reader, whose queue gets the market's entries", async () => {
    const connection = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true, name: 'dispatcher-test' });
    const queues: Queue<StreamJob>[] = ctx.shards.all().map((k) => openQueue(ctx.keys, connection, 'candles', k.shard));
    const store = storeWithShards(ctx.markets.store, { ETH_USDT: 1 });
    const routes = [{ queue: 'candles', kinds: ['spot' as const], events: ['trade'] }];
    const dispatcher = new EventDispatcher({ ...ctx, markets: { ...ctx.markets, store } }, routes, queues, { ...DISPATCHER_DEFAULTS, blockMs: 100 });
    try {
      await dispatcher.start();
      const ev = JSON.stringify([{ e: 'trade', id: '9', p: '300000', q: '1000', side: 'sell' }]);
      const onShard1 = await ctx.redis.xadd(ctx.shards.keys(1).events('spot', 'ETH_USDT'), '*', 'ts', '1700000000000', 'ev', ev);
      const onShard0 = await ctx.redis.xadd(ctx.shards.keys(0).events('spot', 'BTC_USDT'), '*', 'ts', '1700000000000', 'ev', ev);
      const eth = await until(() => queues[1].getJob(streamJobId('spot', 'ETH_USDT', onShard1!)));
      const btc = await until(() => queues[0].getJob(streamJobId('spot', 'BTC_USDT', onShard0!)));
      expect([eth.data.shard, btc.data.shard]).toEqual([1, undefined]);
      // no other shard's queue got either entry
      for (const q of [queues[0], queues[2]]) expect(await q.getJob(streamJobId('spot', 'ETH_USDT', onShard1!))).toBeUndefined();
      for (const q of [queues[1], queues[2]]) expect(await q.getJob(streamJobId('spot', 'BTC_USDT', onShard0!))).toBeUndefined();
    } finally {
      await dispatcher.stop();
      await Promise.all(queues.map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    }
  });
});

describe('candles stored before shards', () => {
  it('move to the shard candle tag once, keeping what was folded under the new key', async () => {
    const pair = (await ctx.markets.store.getPair('spot', 'ETH_USDT'))!;
    const old = ctx.shards.keys(0).legacyCandleKeys('spot', pair.code);
    const to = ctx.shards.keysOf(pair);
    await ctx.redis.hset(old.candles, '60:1000', '{"o":"1"}', '60:2000', '{"o":"2"}');
    await ctx.redis.zadd(old.applied, 1000, '1000-0', 2000, '2000-0');
    await ctx.redis.xadd(old.events, '*', 'ev', '[]');
    // folded after the upgrade, before the move ran: the newer version stays
    await ctx.redis.hset(to.candles('spot', pair.code), '60:2000', '{"o":"new"}');

    expect(await moveLegacyCandles(ctx.redis, ctx.shards, ctx.markets.store, ctx.log)).toBe(1);
    expect(await ctx.redis.hgetall(to.candles('spot', pair.code))).toEqual({ '60:1000': '{"o":"1"}', '60:2000': '{"o":"new"}' });
    expect(await ctx.redis.zrange(to.candlesApplied('spot', pair.code), '0', '-1')).toEqual(['1000-0', '2000-0']);
    expect([await ctx.redis.exists(old.candles), await ctx.redis.exists(old.applied), await ctx.redis.exists(old.events)]).toEqual([0, 0, 0]);
    // a second run (another worker starting) finds nothing to move
    expect(await moveLegacyCandles(ctx.redis, ctx.shards, ctx.markets.store, ctx.log)).toBe(0);
  });
});
