import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { shardOfPair } from '../../../src/domain/market';
import { startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { startRedisCluster, type RedisClusterProcess } from '../../../src/platform/redis/redis-cluster-process';
import { checkShardPlacement } from '../../../src/platform/redis/shard-placement';
import { shardSlot, shardTag } from '../../../src/platform/redis/shard-tags';
import type { EngineShardDto } from '../../../src/transport/http/admin-shards.routes';
import { bearer, createApp, testContext } from '../../support/harness';

/** Log lines a check writes, parsed. */
function capturingLogger() {
  const lines: { level: number; msg: string; shards?: number[]; node?: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

/** On a server of its own each: the answer names that server's nodes. */
describe.each([
  ['one Redis', false, 1],
  ['a 3-master cluster', true, 3],
])('GET /api/admin/shards (%s)', (_name, cluster, shards) => {
  let server: RedisServerProcess | RedisClusterProcess;
  let ctx: Awaited<ReturnType<typeof testContext>>;

  beforeAll(async () => {
    server = cluster ? await startRedisCluster({ masters: 3 }) : await startRedisServer();
    ctx = await testContext({ REDIS_URL: server.url, REDIS_CLUSTER: cluster ? '1' : '0', ENGINE_SHARDS: String(shards) });
  });
  afterAll(async () => {
    await ctx?.cleanup();
    await server?.stop();
  });

  it('lists every shard with its tag, slot, serving master and markets', async () => {
    const res = await request(createApp(ctx)).get('/api/admin/shards').set('Authorization', bearer('root', true));
    expect(res.status).toBe(200);
    const body = res.body as EngineShardDto[];
    expect(body.map((s) => [s.shard, s.tag, s.slot])).toEqual(
      Array.from({ length: shards }, (_, i) => [i, shardTag(i), shardSlot(i)]),
    );
    const addresses = 'nodes' in server ? server.nodes.map((n) => `127.0.0.1:${n.port}`) : [new URL(server.url).host];
    for (const s of body) expect(addresses).toContain(s.node);
    // three shards of an even 3-master split: three masters
    expect(new Set(body.map((s) => s.node)).size).toBe(Math.min(shards, addresses.length));
    for (const kind of ['spot', 'futures'] as const) {
      const pairs = await ctx.markets.store.listPairs(kind);
      expect(pairs.length).toBeGreaterThan(0);
      for (const p of pairs) expect(body[shardOfPair(p)].markets[kind]).toContain(p.code);
      expect(body.flatMap((s) => s.markets[kind]).sort()).toEqual(pairs.map((p) => p.code).sort());
    }
  });

  it('is for administrators only', async () => {
    const res = await request(createApp(ctx)).get('/api/admin/shards').set('Authorization', bearer('alice'));
    expect(res.status).toBe(403);
  });

  it('logs at start which shards share a master, and nothing when none do', async () => {
    const fine = capturingLogger();
    await checkShardPlacement(ctx.redis, shards, fine.log);
    expect(fine.lines.filter((l) => l.level >= 40)).toEqual([]);
    // a fourth shard falls in the first third of the slots again: on the cluster it shares shard 0's master
    const four = capturingLogger();
    const placements = await checkShardPlacement(ctx.redis, 4, four.log);
    const warned = four.lines.filter((l) => l.level === 40);
    if (cluster) {
      expect(placements[3].node).toBe(placements[0].node);
      expect(warned).toHaveLength(1);
      expect(warned[0].shards).toEqual([0, 3]);
      expect(warned[0].msg).toContain(`engine shards 0, 3 share the master ${placements[0].node}`);
    } else {
      expect(new Set(placements.map((p) => p.node)).size).toBe(1);
      expect(warned).toEqual([]);
    }
  });
});
