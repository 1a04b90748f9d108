import request from 'supertest';
import { Cluster } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import {
  killClusterNode,
  restartClusterNode,
  startRedisCluster,
  type RedisClusterProcess,
} from '../../../src/platform/redis/redis-cluster-process';
import { nodeOfSlot, slotMasters } from '../../../src/platform/redis/shard-placement';
import { bearer, createApp, testContext } from '../../support/harness';

/**
 * A master that comes back without its scripts (restarted from its AOF: data kept, script cache
 * and, until the AOF is replayed, functions gone): requests answer as before or 503, never 500.
 * Each case runs on a server of its own, since flushing scripts on the shared one would disturb the
 * other suites.
 */
const USER = 'lsalice';
const order = { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 };

async function setUp(server: RedisServerProcess | RedisClusterProcess, cluster: boolean) {
  const ctx = await testContext({ REDIS_URL: server.url, REDIS_CLUSTER: cluster ? '1' : '0', ENGINE_SHARDS: cluster ? '3' : '1' });
  await ctx.wallets.deposit(USER, 'USDT', 1_000_000);
  const app = createApp(ctx);
  const place = () => request(app).post('/api/orders').set('Authorization', bearer(USER)).send(order);
  return { ctx, place };
}

describe.each([
  ['one Redis', false],
  ['a 3-master cluster', true],
])('requests after the server lost its scripts (%s)', (_name, cluster) => {
  let server: RedisServerProcess | RedisClusterProcess;
  let t: Awaited<ReturnType<typeof setUp>>;

  beforeAll(async () => {
    server = cluster ? await startRedisCluster({ masters: 3 }) : await startRedisServer();
    t = await setUp(server, cluster);
  });
  afterAll(async () => {
    await t?.ctx.cleanup();
    await server?.stop();
  });

  it.each(['SCRIPT', 'FUNCTION'])('%s FLUSH, then orders at once answer as before', async (what) => {
    expect((await t.place()).status).toBe(200);
    const masters = t.ctx.redis instanceof Cluster ? t.ctx.redis.nodes('master') : [t.ctx.redis];
    for (const m of masters) await m.call(what, 'FLUSH');
    // at once, as a busy api sends them: ioredis pipelines them
    const replies = await Promise.all(Array.from({ length: 8 }, () => t.place()));
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
  });
});

describe('a master restarted from its AOF under load (3-master cluster)', () => {
  it('answers 200 or 503 throughout, never 500, and 200 again after', async () => {
    const server = await startRedisCluster({ masters: 3 });
    const t = await setUp(server, true);
    try {
      expect((await t.place()).status).toBe(200);
      // the master that holds the user's rate-limit keys: every order request runs its script there
      const subject = t.ctx.keys.rateLimitSubject(USER);
      const node = nodeOfSlot(await slotMasters(t.ctx.redis as Cluster), calculateSlot(subject));
      const victim = server.nodes.find((n) => node === `127.0.0.1:${n.port}`)!;
      const statuses: number[] = [];
      let running = true;
      const loop = async () => {
        while (running) statuses.push((await t.place()).status);
      };
      const load = Promise.all(Array.from({ length: 8 }, loop));
      await new Promise((r) => setTimeout(r, 300));
      killClusterNode(victim);
      await new Promise((r) => setTimeout(r, 500));
      await restartClusterNode(victim);
      await new Promise((r) => setTimeout(r, 2500));
      running = false;
      await load;
      expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
      expect((await t.place()).status).toBe(200);
    } finally {
      await t.ctx.cleanup();
      await server.stop();
    }
  });
});
