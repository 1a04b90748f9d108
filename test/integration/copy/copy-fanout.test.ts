import { createRedis } from '../../../src/platform/redis/connection';
import { COPY_FANOUT_QUEUE, COPY_MIRROR_QUEUE, startCopyMirrorWorker } from '../../../src/copy/copy-workers';
import type { FanoutChunk } from '../../../src/copy/copy-fanout';
import { parseEntry } from '../../../src/platform/market-event';
import { openQueue, streamJobId, type StreamJob } from '../../../src/platform/queues';
import { copyBed, type CopyBed } from './helpers';

let b: CopyBed;
afterEach(async () => b.ctx.cleanup());

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the copy fan-out in chunks', () => {
  it('cuts a master fill into chunk jobs named after the stream entry; a re-dispatched entry or a re-run chunk adds and places nothing', async () => {
    b = await copyBed({ COPY_FANOUT_CHUNK: '2' });
    await b.liquidity(100);
    const m = await b.master('max');
    const users = ['s1', 's2', 's3', 's4', 's5'];
    const subs: string[] = [];
    for (const u of users) subs.push(String((await b.subscribe(u, m, await b.slave(u), 1_000)).id));
    const mOrder = await b.order('max', m, true, null, 1);

    // the stream entry holding the master order's fill (it takes the ask), as the dispatcher hands it over
    const raw = await b.ctx.redis.xrange(b.ctx.keys.events('futures', 'BTC_USDT'), '-', '+');
    const isFill = (ev: Record<string, string>) => ev.e === 'trade' && ev.tk === String(mOrder);
    const entry = raw.map(([id, fields]) => parseEntry(id, fields)).find((e) => e.events.some(isFill))!;
    const job: StreamJob = { kind: 'futures', pair: 'BTC_USDT', entryId: entry.id, ts: entry.ts, events: entry.events };
    const index = entry.events.findIndex(isFill);
    const tradeId = entry.events[index].id;
    const chunks = await b.ctx.copy.mirror.plan(job);
    // oldest subscription first, two per chunk; `t`: the master is the trade's taker
    expect(chunks.map((c) => [c.id, c.event.kind, c.event.masterOrderId, c.subs])).toEqual([
      [`futures/BTC_USDT/${entry.id}/${index}t/0`, 'fill', String(mOrder), subs.slice(0, 2)],
      [`futures/BTC_USDT/${entry.id}/${index}t/1`, 'fill', String(mOrder), subs.slice(2, 4)],
      [`futures/BTC_USDT/${entry.id}/${index}t/2`, 'fill', String(mOrder), subs.slice(4)],
    ]);
    // every chunk sizes its orders from the same master equity
    expect(new Set(chunks.map((c) => c.equity)).size).toBe(1);

    const connection = createRedis({ url: b.ctx.config.redisUrl, cluster: b.ctx.config.redisCluster, blocking: true, name: 'copy-fanout-test' });
    const entries = openQueue(b.ctx.keys, connection, COPY_MIRROR_QUEUE);
    const fanout = openQueue<FanoutChunk>(b.ctx.keys, connection, COPY_FANOUT_QUEUE);
    const worker = startCopyMirrorWorker(b.ctx, connection);
    const mirrored = async () => {
      const clids = await Promise.all(users.map(async (u, i) => (await b.orders(u)).filter((o: { clientOrderId: string | null }) => o.clientOrderId === `copy:${mOrder}:${subs[i]}:${tradeId}`)));
      return clids.map((list) => list.length);
    };
    try {
      const entryJobId = streamJobId('futures', 'BTC_USDT', entry.id);
      await entries.add('entry', job, { jobId: entryJobId });
      await until('the chunks run', async () => ((await fanout.getJobCounts('completed')).completed === 3 ? true : undefined));
      const done = await fanout.getJobs(['completed']);
      expect(done.map((j) => j.id).sort()).toEqual(chunks.map((c) => c.id).sort());
      const finishedOn = new Map(done.map((j) => [j.id, j.finishedOn]));
      expect(await mirrored()).toEqual([1, 1, 1, 1, 1]);

      // the entry handed over again after its job was removed (a dispatcher's takeover, a replay)
      await (await entries.getJob(entryJobId))!.remove();
      await entries.add('entry', job, { jobId: entryJobId });
      await until('the entry job runs again', async () => ((await entries.getJob(entryJobId))?.finishedOn ? true : undefined));
      expect(await fanout.getJobCounts('completed', 'waiting', 'active', 'delayed')).toEqual({ completed: 3, waiting: 0, active: 0, delayed: 0 });
      // no chunk ran twice
      for (const j of await fanout.getJobs(['completed'])) expect(j.finishedOn).toBe(finishedOn.get(j.id));
    } finally {
      await worker.close();
      await entries.close();
      await fanout.close();
      await connection.quit().catch(() => undefined);
    }
    // a chunk run again (a worker that died after its orders, before the job was marked done) places nothing
    for (const c of chunks) expect(await b.ctx.copy.mirror.fanout.run(c)).toEqual({ placed: 0, skipped: 0, closed: 0, updated: 0, failed: 0 });
    expect(await mirrored()).toEqual([1, 1, 1, 1, 1]);
  });
});
