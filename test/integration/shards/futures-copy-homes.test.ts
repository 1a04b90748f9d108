import { copyBed, type CopyBed } from '../copy/helpers';
import { durableRedis, type ShardRedis, expectReconciled, httpHelpers, userWithHome } from './shard-fixture';

let server: ShardRedis;
let b: CopyBed;
beforeAll(async () => {
  server = await durableRedis();
});
afterAll(async () => server.stop());
beforeEach(async () => {
  b = await copyBed({ REDIS_URL: server.url, REDIS_CLUSTER: server.cluster ? '1' : '0', ENGINE_SHARDS: '3', ESCROW_IDLE_SECONDS: '3600' });
});
afterEach(async () => b.ctx.cleanup());

describe('futures and copy trading for users whose home is not shard 0', () => {
  it('funds futures accounts, a master and a follower from their homes; equity comes back to the wallet; money reconciles', async () => {
    const h = httpHelpers(b.app);
    const owner = await userWithHome(b.ctx, 1, 'owner');
    const follower = await userWithHome(b.ctx, 2, 'follower');
    const masterId = await b.master(owner, { amount: 10_000 });
    const slaveId = await b.slave(follower, 5_000);
    // the follower's wallet moved to shard 0 through escrow: nothing is left at home
    expect(await b.walletUsdt(follower)).toBe(0);
    expect((await b.subscribe(follower, masterId, slaveId, 2_000)).id).toBeDefined();
    expectReconciled(await h.reconcile());
    const terms = (await h.reconcile()).find((c) => c.currencyCode === 'USDT')?.terms;
    expect(terms).toMatchObject({ futuresAccounts: 15_000, deposits: 15_000 });

    const closed = await b.del(owner, `/api/copy-master/${masterId}`);
    expect(closed.status).toBe(200);
    // the master's equity is back in the owner's wallet (escrow on shard 0), read whole over the shards
    expect(await b.walletUsdt(owner)).toBe(10_000);
    expectReconciled(await h.reconcile());
    // and it pays for a spot order on the owner's home shard market (ETH_USDT runs on shard 1)
    const spent = await h.place(owner, { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 100, amount: 90 });
    expect([spent.status, spent.body.status]).toEqual([200, 'open']);
    expect((await h.balances(owner)).USDT).toEqual({ currencyCode: 'USDT', available: 1000, reserved: 9000 });
    expectReconciled(await h.reconcile());
  });

  it('refuses a master whose owner has not got the capital anywhere, creating nothing', async () => {
    const owner = await userWithHome(b.ctx, 2, 'poor');
    await b.deposit(owner, 100);
    const r = await b.post(owner, '/api/copy-master', b.masterBody({ amount: 1_000 }));
    expect([r.status, r.body.error.code]).toEqual([422, 'INSUFFICIENT_BALANCE']);
    expect(await b.walletUsdt(owner)).toBe(100);
    expectReconciled(await httpHelpers(b.app).reconcile());
  });
});
