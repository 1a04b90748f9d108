import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { drainAll, expectOrdersPresent, expectReconciled, orderLoad, shardWorld, userWithHome } from './shard-fixture';

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
  const w = await shardWorld({ url: server.url, cluster: false }, 3, { ESCROW_IDLE_SECONDS: '3600', ESCROW_HEADROOM_PERCENT: '0', REDIS_COMMAND_TIMEOUT_MS: '500' });
  try {
    const users = [await userWithHome(w.ctx, 0, 'k0-'), await userWithHome(w.ctx, 1, 'k1-'), await userWithHome(w.ctx, 2, 'k2-')];
    for (const u of users) await w.deposit(u, 'USDT', 100_000);
    const load = orderLoad(w, users);
    await new Promise((res) => setTimeout(res, 400));
    server.child.kill('SIGKILL');
    await new Promise((res) => setTimeout(res, 300));
    const acknowledged = await load.stop();
    expect(acknowledged.length).toBeGreaterThan(0);

    server = await start();
    // the engine connection reconnects by itself; the relay's links too
    await drainAll(w);
    await expectOrdersPresent(w, acknowledged);
    expectReconciled(await w.reconcile());
  } finally {
    await w.ctx.cleanup();
  }
});
