import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { freePort, startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { bearer } from '../../support/harness';
import { expectReconciled, shardWorld, userWithHome } from './shard-fixture';

/**
 * The shards' Redis SIGKILLed while orders needing top-ups stream in, then restarted from its AOF
 * (`appendfsync always`): every order acknowledged before the kill is there, nothing is credited
 * twice or lost, and once the outboxes drain the money reconciles with nothing in transit.
 */
const dir = mkdtempSync(join(tmpdir(), 'shards-aof-'));
let port: number;
let server: RedisServerProcess;
const start = () => startRedisServer({ port, dir, appendOnly: true, extraArgs: ['--appendfsync', 'always'] });

beforeAll(async () => {
  port = await freePort();
  server = await start();
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('keeps every acknowledged order and reconciles after a SIGKILL mid-load and a restart from the AOF', async () => {
  // no headroom: every order away from home needs a top-up, so transfers are in flight when the server dies
  const w = await shardWorld(server.url, 3, { ESCROW_IDLE_SECONDS: '3600', ESCROW_HEADROOM_PERCENT: '0', REDIS_COMMAND_TIMEOUT_MS: '500' });
  try {
    const users = [await userWithHome(w.ctx, 0, 'k0-'), await userWithHome(w.ctx, 1, 'k1-'), await userWithHome(w.ctx, 2, 'k2-')];
    for (const u of users) await w.deposit(u, 'USDT', 100_000);
    const acknowledged: { user: string; id: number }[] = [];
    let stop = false;
    const load = users.map(async (user, i) => {
      for (let n = 0; !stop; n++) {
        // every user buys on the markets of the two shards that are not its home: each order may need a top-up
        const pair = ['BTC_USDT', 'ETH_USDT'][(i + n) % 2];
        const r = await w.place(user, { currencyPairCode: pair, side: 'buy', type: 'limit', price: 10 + (n % 5), amount: 1 });
        if (r.status === 200) acknowledged.push({ user, id: r.body.id });
        else expect([r.status, r.body.error.code]).toEqual([503, expect.any(String)]);
        if (r.status !== 200) await new Promise((res) => setTimeout(res, 20));
      }
    });
    await new Promise((res) => setTimeout(res, 400));
    server.child.kill('SIGKILL');
    await new Promise((res) => setTimeout(res, 300));
    stop = true;
    await Promise.all(load);
    expect(acknowledged.length).toBeGreaterThan(0);

    server = await start();
    // the engine connection reconnects by itself; the relay's links too
    let drained = false;
    for (let i = 0; i < 50 && !drained; i++) {
      try {
        for (let shard = 0; shard < 3; shard++) await w.ctx.funds.relay?.drain(shard, 0);
        drained = (await Promise.all([0, 1, 2].map((s) => w.ctx.funds.ledger.outbox(s)))).every((o) => o.length === 0);
      } catch {
        drained = false;
      }
      if (!drained) await new Promise((res) => setTimeout(res, 200));
    }
    expect(drained).toBe(true);
    for (const { user, id } of acknowledged) {
      const r = await request(w.app).get(`/api/orders/${id}`).set('Authorization', bearer(user));
      expect([id, r.status]).toEqual([id, 200]);
    }
    expectReconciled(await w.reconcile());
  } finally {
    await w.ctx.cleanup();
  }
});
