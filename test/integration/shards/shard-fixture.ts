import request from 'supertest';
import type { Express } from 'express';
import Redis from 'ioredis';
import { startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { bearer, createApp, testContext } from '../../support/harness';
import { clusterRequested, testClusterNodes } from '../../support/test-cluster';

export type ShardCtx = Awaited<ReturnType<typeof testContext>>;

/** Where the shard tests run: a URL, whether it is a cluster, and how to stop it when it is the suite's own. */
export interface ShardRedis {
  url: string;
  cluster: boolean;
  stop(): Promise<void>;
}

/**
 * Redis for the shard tests, where a transfer step is durable when its reply comes back (several
 * engine shards refuse to start otherwise, src/platform/redis/shard-links.ts). On the cluster run
 * (REDIS_CLUSTER=1) it is the run's own 3-master cluster, whose masters run `appendfsync always`
 * there with ENGINE_SHARDS > 1 (global-setup.ts), so each shard's tag is on a master of its own;
 * otherwise a redis-server of the suite's own with `appendfsync always`.
 */
export async function durableRedis(): Promise<ShardRedis> {
  if (clusterRequested()) {
    const url = process.env.REDIS_URL as string;
    await expectFsyncAlways(testClusterNodes().filter((n) => n.replicaOf === undefined).map((n) => n.port));
    return { url, cluster: true, stop: async () => undefined };
  }
  const server = await durableServer();
  return { url: server.url, cluster: false, stop: () => server.stop() };
}

/** A redis-server of the suite's own with `appendfsync always`, for tests that stop or kill it. */
export function durableServer(): Promise<RedisServerProcess> {
  return startRedisServer({ appendOnly: true, extraArgs: ['--appendfsync', 'always'] });
}

/** The run's cluster must make writes durable by fsync: a clear message instead of a refused start later. */
async function expectFsyncAlways(ports: number[]): Promise<void> {
  for (const port of ports) {
    const node = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await node.connect();
      const [, fsync] = (await node.config('GET', 'appendfsync')) as string[];
      if (fsync !== 'always') throw new Error(`the shard tests on the cluster need ENGINE_SHARDS > 1 (masters with appendfsync always); node ${port} runs ${fsync}`);
    } finally {
      node.disconnect();
    }
  }
}

/** A context of `shards` engine shards on `url`, and its app, with helpers over HTTP. */
export async function shardWorld(redis: Pick<ShardRedis, 'url' | 'cluster'>, shards: number, overrides: Record<string, string> = {}) {
  const ctx = await testContext({ REDIS_URL: redis.url, REDIS_CLUSTER: redis.cluster ? '1' : '0', ENGINE_SHARDS: String(shards), ...overrides });
  const app = createApp(ctx);
  return { ctx, app, ...httpHelpers(app) };
}

export function httpHelpers(app: Express) {
  const admin = bearer('ops', true);
  return {
    async deposit(userId: string, currencyCode: string, amount: number) {
      const r = await request(app).post('/api/admin/deposits').set('Authorization', admin).send({ userId, currencyCode, amount });
      expect(r.status).toBe(200);
    },
    place(userId: string, body: Record<string, unknown>) {
      return request(app).post('/api/orders').set('Authorization', bearer(userId)).send(body);
    },
    async balances(userId: string): Promise<Record<string, { available: number; reserved: number }>> {
      const r = await request(app).get('/api/wallet/balances').set('Authorization', bearer(userId));
      expect(r.status).toBe(200);
      return Object.fromEntries(r.body.map((b: { currencyCode: string }) => [b.currencyCode, b]));
    },
    async reconcile(): Promise<{ currencyCode: string; holds: boolean; difference: number; terms: Record<string, number>; negative: string[] }[]> {
      const r = await request(app).get('/api/admin/reconcile').set('Authorization', admin);
      expect(r.status).toBe(200);
      return r.body;
    },
    admin,
  };
}

/** Every currency's invariant holds, nothing is negative, and (when `atRest`) nothing is in transit. */
export function expectReconciled(rows: { currencyCode: string; holds: boolean; terms: Record<string, number>; negative: string[] }[], atRest = true): void {
  for (const row of rows) {
    expect([row.currencyCode, row.holds, row.negative]).toEqual([row.currencyCode, true, []]);
    if (atRest) expect([row.currencyCode, row.terms.inTransit]).toEqual([row.currencyCode, 0]);
  }
}

/**
 * One USDT transfer stopped after its debit on `shard`: the invariant holds with it in transit, and
 * the drain of `shard` delivers it once (a second drain finds nothing).
 */
export async function expectDrainedOnce(
  reconcile: () => Promise<Parameters<typeof expectReconciled>[0]>,
  relay: { drain(shard: number, minAgeMs: number): Promise<number> },
  shard: number,
): Promise<void> {
  const inFlight = await reconcile();
  expectReconciled(inFlight, false);
  expect(inFlight.find((r) => r.currencyCode === 'USDT')!.terms.inTransit).toBeGreaterThan(0);
  expect(await relay.drain(shard, 0)).toBe(1);
  expect(await relay.drain(shard, 0)).toBe(0);
}

/** A user id whose home is `shard` (homes are spread by a hash of the id). */
export async function userWithHome(ctx: ShardCtx, shard: number, prefix: string): Promise<string> {
  for (let i = 0; ; i++) {
    const id = `${prefix}${i}`;
    // a fresh id has no record yet: the hash decides it, and `of` records it
    if ((await ctx.funds.homes.of(id)) === shard) return id;
  }
}

type ShardWorld = Awaited<ReturnType<typeof shardWorld>>;

/**
 * Users buying without pause on BTC_USDT (shard 0) and ETH_USDT (shard 1): with no headroom every
 * order away from its user's home may need a top-up, so transfers are in flight whenever a fault strikes. `stop` ends the load and returns
 * the orders acknowledged (200); any other answer must be a 503.
 */
export function orderLoad(w: ShardWorld, users: string[]): { stop(): Promise<{ user: string; id: number }[]> } {
  const acknowledged: { user: string; id: number }[] = [];
  let stopped = false;
  const load = users.map(async (user, i) => {
    for (let n = 0; !stopped; n++) {
      const pair = ['BTC_USDT', 'ETH_USDT'][(i + n) % 2];
      const r = await w.place(user, { currencyPairCode: pair, side: 'buy', type: 'limit', price: 10 + (n % 5), amount: 1 });
      if (r.status === 200) acknowledged.push({ user, id: r.body.id });
      // the whole body on a failure: a 500 says which error the fault turned into
      else expect({ status: r.status, error: r.body.error }).toEqual({ status: 503, error: expect.objectContaining({ code: expect.any(String) }) });
      if (r.status !== 200) await new Promise((res) => setTimeout(res, 20));
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(load);
      return acknowledged;
    },
  };
}

/**
 * Drains every shard's outbox until all are empty, as the wallet worker does after a fault (a shard
 * just back may refuse a step a few times first); fails the test when they do not empty in time.
 */
export async function drainAll(w: ShardWorld, shards = 3, timeoutMs = 15_000): Promise<void> {
  const relay = w.ctx.funds.relay as NonNullable<typeof w.ctx.funds.relay>;
  const deadline = Date.now() + timeoutMs;
  let drained = false;
  while (!drained && Date.now() < deadline) {
    try {
      for (let shard = 0; shard < shards; shard++) await relay.drain(shard, 0);
      const outboxes = await Promise.all(Array.from({ length: shards }, (_, s) => w.ctx.funds.ledger.outbox(s)));
      drained = outboxes.every((o) => o.length === 0);
    } catch {
      drained = false;
    }
    if (!drained) await new Promise((res) => setTimeout(res, 200));
  }
  expect(drained).toBe(true);
}

/** Every acknowledged order can be read back by its owner. */
export async function expectOrdersPresent(w: ShardWorld, orders: { user: string; id: number }[]): Promise<void> {
  for (const { user, id } of orders) {
    const r = await request(w.app).get(`/api/orders/${id}`).set('Authorization', bearer(user));
    expect([id, r.status]).toEqual([id, 200]);
  }
}
