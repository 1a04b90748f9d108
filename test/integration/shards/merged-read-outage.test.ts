import request from 'supertest';
import type { RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { bearer } from '../../support/harness';
import { durableServer, shardWorld, userWithHome } from './shard-fixture';

let server: RedisServerProcess;
beforeAll(async () => {
  server = await durableServer();
});
afterAll(async () => {
  server.child.kill('SIGCONT');
  await server.stop();
});

it('answers 503, never a partial sum, when the shards cannot answer a merged read', async () => {
  const w = await shardWorld({ url: server.url, cluster: false }, 3, { REDIS_COMMAND_TIMEOUT_MS: '300' });
  try {
    const user = await userWithHome(w.ctx, 2, 'reader');
    await w.deposit(user, 'USDT', 1000);
    expect((await w.place(user, { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 })).status).toBe(200);
    server.child.kill('SIGSTOP');
    const balances = await request(w.app).get('/api/wallet/balances').set('Authorization', bearer(user));
    const orders = await request(w.app).get('/api/orders').set('Authorization', bearer(user));
    server.child.kill('SIGCONT');
    expect([balances.status, balances.body.error.code]).toEqual([503, 'ENGINE_UNAVAILABLE']);
    expect([orders.status, orders.body.error.code]).toEqual([503, 'ENGINE_UNAVAILABLE']);
    // once the shards answer, the read is whole again
    await new Promise((r) => setTimeout(r, 500));
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 900, reserved: 100 });
  } finally {
    server.child.kill('SIGCONT');
    await w.ctx.cleanup();
  }
});
