import request from 'supertest';
import type { Express } from 'express';
import { startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { bearer, createApp, testContext } from '../../support/harness';

export type ShardCtx = Awaited<ReturnType<typeof testContext>>;

/**
 * A redis-server of the shard tests' own, with `appendfsync always`: several engine shards refuse
 * to start on a server that cannot make a transfer step durable (src/platform/redis/shard-links.ts).
 */
export function durableRedis(extraArgs: string[] = []): Promise<RedisServerProcess> {
  return startRedisServer({ appendOnly: true, extraArgs: ['--appendfsync', 'always', ...extraArgs] });
}

/** A context of `shards` engine shards on `url`, and its app, with helpers over HTTP. */
export async function shardWorld(url: string, shards: number, overrides: Record<string, string> = {}) {
  const ctx = await testContext({ REDIS_URL: url, ENGINE_SHARDS: String(shards), ...overrides });
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

/** A user id whose home is `shard` (homes are spread by a hash of the id). */
export async function userWithHome(ctx: ShardCtx, shard: number, prefix: string): Promise<string> {
  for (let i = 0; ; i++) {
    const id = `${prefix}${i}`;
    // a fresh id has no record yet: the hash decides it, and `of` records it
    if ((await ctx.funds.homes.of(id)) === shard) return id;
  }
}
