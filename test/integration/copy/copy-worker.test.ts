import type { Queue } from 'bullmq';
import { createRedis } from '../../../src/platform/redis/connection';
import { startCopyMirrorWorker } from '../../../src/copy/copy-workers';
import { EventDispatcher } from '../../../src/transport/workers/event-dispatcher';
import { openQueue, type StreamJob } from '../../../src/platform/queues';
import { STREAM_ROUTES } from '../../../src/transport/workers/stream-routes';
import { copyBed, type CopyBed } from './helpers';

let b: CopyBed;
afterEach(async () => b.ctx.cleanup());

async function until<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the copy-mirror route and worker', () => {
  it('mirrors a master fill dispatched from the futures stream through BullMQ', async () => {
    b = await copyBed();
    const route = STREAM_ROUTES.filter((r) => r.queue === 'copy-mirror');
    expect(route).toEqual([{ queue: 'copy-mirror', kinds: ['futures'], events: ['trade', 'done', 'trigger'] }]);
    const connection = createRedis({ url: b.ctx.config.redisUrl, cluster: b.ctx.config.redisCluster, blocking: true, name: 'copy-test' });
    const queues: Queue<StreamJob>[] = b.ctx.shards.all().map((k) => openQueue(b.ctx.keys, connection, 'copy-mirror', k.shard));
    const worker = startCopyMirrorWorker(b.ctx, connection);
    const dispatcher = new EventDispatcher(b.ctx, route, queues, {
      claimIdleMs: 30_000, claimEveryMs: 60_000, blockMs: 100, batch: 100, refreshPairsMs: 100,
    });
    await dispatcher.start();
    try {
      await b.liquidity(100);
      const m = await b.master('max');
      const sam = await b.slave('sam');
      const sub = await b.subscribe('sam', m, sam, 1_000);
      const mOrder = await b.order('max', m, true, null, 1);
      const f = await until(async () =>
        (await b.orders('sam')).find((o: { clientOrderId: string | null }) => o.clientOrderId?.startsWith(`copy:${mOrder}:${sub.id}:`)),
      );
      expect(f).toMatchObject({ futuresOrderStatus: 50, isLong: true });
      await b.put('max', '/api/futures/trade/close', { orderId: mOrder, isMarket: true });
      await until(async () => ((await b.record('sam', f.id)).futuresOrderStatus === 20 ? true : undefined));
    } finally {
      await dispatcher.stop();
      await worker.close();
      await Promise.all(queues.map((q) => q.close()));
      await connection.quit().catch(() => undefined);
    }
  });
});
