import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { startCopyWorkers, COPY_FANOUT_QUEUE } from '../../src/copy';
import { CopyStore } from '../../src/copy/copy-store';
import { fromMinor } from '../../src/domain/decimal';
import { parseEntry } from '../../src/platform/market-event';
import { createRedis } from '../../src/platform/redis/connection';
import { openQueue } from '../../src/platform/queues';
import { startWorkerRole } from '../../src/transport/workers/worker-role';
import { TEST_SECRET } from '../support/harness';
import { copyBed, type CopyBed } from '../integration/copy/helpers';

/**
 * Issue 9: a worker process SIGKILLed halfway through a master fill's fan-out to 500 followers.
 * Another worker takes the dead one's jobs over (its chunk in flight, the chunks it never ran);
 * afterwards every follower holds exactly one mirrored order for the fill, and no money appeared
 * or vanished.
 */
jest.setTimeout(90_000);

const FOLLOWERS = 500;
const ROOT = resolve(__dirname, '../..');
const TAKEOVER = { lockDurationMs: 2000, stalledIntervalMs: 500 };

let b: CopyBed;
let child: ChildProcess | undefined;
const workers: { close(): Promise<void> }[] = [];

afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  for (const w of workers.splice(0).reverse()) await w.close();
  await b.ctx.cleanup();
});

async function until(what: string, check: () => Promise<boolean>, ms = 40_000, every = 100): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

it('a worker killed midway through a fan-out to 500 followers: every follower ends with exactly one order for the master fill', async () => {
  b = await copyBed();
  const ctx = b.ctx;
  await b.liquidity(100, 100);
  const master = await b.master('max'); // equity 10,000
  const users = Array.from({ length: FOLLOWERS }, (_, i) => `f${i}`);
  const store = new CopyStore(ctx.redis, ctx.keys, ctx.shards);
  const subs: { id: string; acct: string }[] = new Array(FOLLOWERS);
  for (let i = 0; i < FOLLOWERS; i += 50) {
    await Promise.all(
      users.slice(i, i + 50).map(async (u, j) => {
        await ctx.wallets.deposit(u, 'USDT', 200);
        const s = await ctx.copy.slaves.create(u, { name: u, leverage: 10, currencyCode: 'USDT' });
        await ctx.futures.accounts.transfer(u, { fromFuturesAccountId: null, toFuturesAccountId: s.id, currencyCode: 'USDT', amount: 200 });
        const sub = await ctx.copy.slaves.start(u, { copyMasterFuturesAccountId: master, copySlaveFuturesAccountId: s.id, margin: 100 });
        subs[i + j] = { id: String(sub.id), acct: String((await store.subscription(sub.id))!.acct) };
      }),
    );
  }
  const total = await b.usdtTotal();

  // the worker in a process of its own, fanning out 20 followers per job, one job at a time
  child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'test/support/worker-child.ts')], {
    cwd: ROOT,
    env: {
      ...process.env, REDIS_URL: ctx.config.redisUrl, KEY_PREFIX: ctx.config.keyPrefix, JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent',
      COPY_FANOUT_CHUNK: '20', COPY_FANOUT_CONCURRENCY: '1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ready, fail) => {
    child!.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && ready());
    child!.once('exit', (code) => fail(new Error(`worker child exited with ${code}`)));
  });

  // the master buys 10 BTC: each follower (margin 100 of 10,000) gets 0.1
  const mOrder = await b.order('max', master, true, null, 10);
  // its one fill (it takes the single ask): the followers' orders are named after it
  const entries = await ctx.redis.xrange(ctx.keys.events('futures', 'BTC_USDT'), '-', '+');
  const fill = entries.flatMap(([id, f]) => parseEntry(id, f).events).find((ev) => ev.e === 'trade' && ev.tk === String(mOrder))!;
  const clids = subs.map((s) => `copy:${mOrder}:${s.id}:${fill.id}`);
  const mirrored = async () => {
    const p = ctx.redis.pipeline();
    users.forEach((u, i) => p.hget(ctx.keys.futuresClientOrderIds(u), clids[i]));
    return ((await p.exec()) ?? []).filter(([, id]) => id).length;
  };
  await until('the fan-out to start', async () => (await mirrored()) > 0, 40_000, 5);
  child.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));
  child = undefined;
  const atKill = await mirrored();
  // killed midway: some followers placed, most not
  expect(atKill).toBeGreaterThan(0);
  expect(atKill).toBeLessThan(FOLLOWERS);

  workers.push(await startWorkerRole(ctx, { ...TAKEOVER, claimIdleMs: 1000, claimEveryMs: 300, blockMs: 200 }));
  workers.push(await startCopyWorkers(ctx, TAKEOVER));
  await until('every follower mirrored', async () => (await mirrored()) === FOLLOWERS);
  // the dead worker's job in flight is taken over once its lock expires, and runs again: wait for it
  const conn = createRedis({ url: ctx.config.redisUrl, cluster: ctx.config.redisCluster, blocking: true });
  const fanout = openQueue(ctx.keys, conn, COPY_FANOUT_QUEUE);
  try {
    await until('the fan-out queue drained', async () => {
      const c = await fanout.getJobCounts('active', 'wait', 'delayed', 'failed');
      return c.active + c.wait + c.delayed + c.failed === 0;
    });
    // 500 followers in chunks of 20 (or one job of 200 per chunk if the entry was planned afresh)
    expect((await fanout.getJobCounts('completed')).completed).toBeGreaterThanOrEqual(3);
  } finally {
    await fanout.close();
    await conn.quit();
  }

  // each subscription account holds one order: the fill's copy, in position, 0.1 BTC
  const pair = (await ctx.markets.store.getPair('futures', 'BTC_USDT'))!;
  for (let i = 0; i < FOLLOWERS; i += 50) {
    const states = await Promise.all(subs.slice(i, i + 50).map((s) => ctx.futures.accountReader.state(s.acct)));
    states.forEach((st, j) => {
      const orders = (st?.orders ?? []).map((o) => [o.h.clid, o.h.status, fromMinor(o.h.amount, pair.digitsAmount)]);
      expect([users[i + j], orders]).toEqual([users[i + j], [[clids[i + j], '50', 0.1]]]);
    });
  }
  expect(await b.usdtTotal()).toBe(total);
});
