import { durableRedis, type ShardRedis, expectReconciled, shardWorld, userWithHome } from './shard-fixture';

let server: ShardRedis;
beforeAll(async () => {
  server = await durableRedis();
});
afterAll(async () => server.stop());

it('places orders that race idle sweeps of the escrow they were topped up into, retrying inside the request', async () => {
  // escrow with nothing reserved is idle after a second: a sweeper running without pause takes it then
  const w = await shardWorld(server, 3, { ESCROW_IDLE_SECONDS: '1', ESCROW_HEADROOM_PERCENT: '0' });
  try {
    const user = await userWithHome(w.ctx, 2, 'racer');
    await w.deposit(user, 'USDT', 10_000);
    const escrow = w.ctx.funds.escrow as NonNullable<typeof w.ctx.funds.escrow>;
    let sweeping = true;
    let swept = 0;
    const sweeper = (async () => {
      while (sweeping) swept += await escrow.sweepIdle(1);
    })();
    const replies = [];
    for (let i = 0; i < 15; i++) {
      // an order and its cancel, then a pause: the escrow turns idle and the sweeper races the next order for it
      const r = await w.place(user, { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 });
      replies.push(r.status);
      if (r.status === 200) await w.ctx.spot.orders.cancel(user, String(r.body.id));
      await new Promise((res) => setTimeout(res, 200));
    }
    sweeping = false;
    await sweeper;
    expect(replies).toEqual(Array(15).fill(200));
    expect(swept).toBeGreaterThan(0);
    for (let shard = 0; shard < 3; shard++) await w.ctx.funds.relay?.drain(shard, 0);
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 10_000, reserved: 0 });
    expectReconciled(await w.reconcile());
  } finally {
    await w.ctx.cleanup();
  }
});
