import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import calculateSlot from 'cluster-key-slot';
import { shardSlot } from '../../../src/platform/redis/shard-tags';
import { buildLuaLibrary } from '../../../src/platform/redis/lua-loader';
import { Scripts } from '../../../src/platform/redis/scripts';
import { bearer, createApp, testContext } from '../../support/harness';

/** A library of its own, so deleting it from the shared test server disturbs no other suite. */
function privateLibrary() {
  const dir = mkdtempSync(join(tmpdir(), 'lua-private-'));
  writeFileSync(
    join(dir, 'echoArg-1.lua'),
    `--[[\n  Input: KEYS[1] unused, ARGV[1] a value\n  Output: the value (${dir})\n]]\nreturn ARGV[1]\n`,
  );
  return buildLuaLibrary(dir);
}

describe('order rate limit', () => {
  it('answers 429 with Retry-After once a user passes the limit, and other users are unaffected', async () => {
    const ctx = await testContext({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '8' });
    try {
      const app = createApp(ctx);
      const body = { currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 };
      const replies = [];
      const started = Date.now();
      for (let i = 0; i < 20; i++) replies.push(await request(app).post('/api/orders').set('Authorization', bearer('alice')).send(body));
      const seconds = (Date.now() - started) / 1000;
      const limited = replies.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      // 5 a second plus a burst bucket of 3 (10 s): 8 in one window, 13 if the loop straddles two, and
      // 5 more for each further second a crowded machine makes the loop last
      const steadyWindows = Math.floor(seconds) + 2;
      expect(replies.filter((r) => r.status !== 429).length).toBeLessThanOrEqual(5 * steadyWindows + 3 * (Math.floor(seconds / 10) + 1));
      expect(Number(limited[0].headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(limited[0].body.error.code).toBe('RATE_LIMITED');
      const bob = await request(app).post('/api/orders').set('Authorization', bearer('bob')).send(body);
      expect(bob.status).not.toBe(429);
      // every answer says where the caller stands (docs/spot.md#rate-limit), a 429 included
      const remaining = replies.map((r) => Number(r.headers['x-ratelimit-remaining']));
      for (const r of [...replies, bob]) {
        expect(r.headers['x-ratelimit-limit']).toBe('5');
        expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
        expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(10);
      }
      // 5 + 3 = 8 at first, one less per request until the buckets are empty
      expect(remaining[0]).toBe(7);
      expect(remaining[1]).toBe(6);
      const firstRefused = replies.findIndex((r) => r.status === 429);
      expect(remaining[firstRefused]).toBe(0);
      expect(remaining[firstRefused - 1]).toBe(0);
      expect(Number(bob.headers['x-ratelimit-remaining'])).toBe(7);
      // a cancel counts too, and says so
      const cancel = await request(app).delete('/api/orders/999999').set('Authorization', bearer('bob'));
      expect(cancel.status).toBe(404);
      expect([cancel.headers['x-ratelimit-limit'], cancel.headers['x-ratelimit-remaining']]).toEqual(['5', '6']);
      // each user's buckets under a hash tag of their own, off the engine shard's slot
      const aliceKey = ctx.keys.rateLimit('alice');
      const bobKey = ctx.keys.rateLimit('bob');
      expect([await ctx.redis.exists(aliceKey), await ctx.redis.exists(bobKey)]).toEqual([1, 1]);
      expect(calculateSlot(aliceKey)).not.toBe(calculateSlot(bobKey));
      expect(calculateSlot(aliceKey)).not.toBe(shardSlot(0));
    } finally {
      await ctx.cleanup();
    }
  });
});

describe('system endpoints', () => {
  it('health, readiness with scripts loaded, and metrics by route and by script', async () => {
    const ctx = await testContext();
    try {
      const app = createApp(ctx);
      expect((await request(app).get('/health')).body).toEqual({ status: 'ok' });
      const ready = await request(app).get('/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.scripts).toBe('loaded');
      // a server that lost the library (FUNCTION FLUSH, a fresh replica) gets it back on the next call
      const scripts = new Scripts(ctx.redis, privateLibrary());
      await scripts.preload();
      await ctx.redis.call('FUNCTION', 'DELETE', scripts.library.name);
      expect(await scripts.loaded()).toBe(false);
      expect(await scripts.run('echoArg', [ctx.keys.engine], ['hello'])).toBe('hello');
      expect(await scripts.loaded()).toBe(true);
      // and /ready loads it when it is missing
      await ctx.redis.call('FUNCTION', 'DELETE', scripts.library.name);
      const withPrivate = createApp({ ...ctx, scripts });
      expect((await request(withPrivate).get('/ready')).status).toBe(200);
      expect(await scripts.loaded()).toBe(true);
      await ctx.redis.call('FUNCTION', 'DELETE', scripts.library.name);
      await request(app).get('/api/orderbook/BTC_USDT');
      const batches = async () =>
        Number(/^spot_place_batch_orders_count (\d+)$/m.exec((await request(app).get('/metrics')).text)?.[1] ?? NaN);
      const callsBefore = await batches();
      await ctx.wallets.deposit('metrics-user', 'USDT', 100);
      const placed = await request(app)
        .post('/api/orders')
        .set('Authorization', bearer('metrics-user'))
        .send({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 100, amount: 0.01 });
      expect(placed.status).toBe(200);
      expect(await batches()).toBe(callsBefore + 1);
      const metrics = await request(app).get('/metrics');
      expect(metrics.text).toContain('http_request_duration_seconds_bucket');
      expect(metrics.text).toMatch(/route="\/api\/orderbook\/:pair"/);
      expect(metrics.text).toMatch(/lua_script_duration_seconds_count\{script="getBookSnapshot"\}/);
    } finally {
      await ctx.cleanup();
    }
  });
});
