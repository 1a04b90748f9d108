import { startWalletWorkers } from '../../../src/wallet';
import { newTransfer } from '../../../src/wallet/transfer-ledger';
import { durableRedis, type ShardRedis, expectReconciled, shardWorld, userWithHome } from './shard-fixture';

let server: ShardRedis;
beforeAll(async () => {
  server = await durableRedis();
});
afterAll(async () => server.stop());

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

it("the worker delivers what a dead api left in an outbox, and sweeps idle escrow home", async () => {
  const w = await shardWorld(server, 3, { ESCROW_IDLE_SECONDS: '1' });
  const worker = startWalletWorkers(w.ctx);
  try {
    const user = await userWithHome(w.ctx, 2, 'idle');
    await w.deposit(user, 'USDT', 1000);
    // an order's top-up, then its cancel: 110 of escrow on shard 1 with nothing reserved
    const r = await w.place(user, { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 });
    await w.ctx.spot.orders.cancel(user, String(r.body.id));
    // and a transfer whose sender died after step 1
    await w.ctx.funds.ledger.send(newTransfer(user, 'USDT', 2, 0), 'exact', String(50e8), String(50e8));
    const k = (shard: number) => w.ctx.shards.keys(shard);
    const escrow = async (shard: number) => Number((await w.ctx.redis.hget(k(shard).walletAvailable(user), 'USDT')) ?? '0');
    // delivered: the 50 reached shard 0 (its credit is there), then every idle escrow came home
    expect(await until(async () => (await w.ctx.funds.ledger.outbox(2)).length === 0, 5000)).toBe(true);
    expect(await until(async () => (await escrow(0)) === 0 && (await escrow(1)) === 0 && (await escrow(2)) === 1000e8, 8000)).toBe(true);
    expectReconciled(await w.reconcile());
  } finally {
    await worker.close();
    await w.ctx.cleanup();
  }
});
