import Redis from 'ioredis';
import { startRedisServer, type RedisServerProcess } from '../../../src/platform/redis/redis-server-process';
import { expectReconciled, shardWorld, userWithHome } from './shard-fixture';

/**
 * A master without AOF but with a replica: the relay makes each transfer step durable by WAIT on
 * its own link. With the replica stopped (SIGSTOP) no WAIT is answered, so a top-up is debited and
 * never credited, the request answers 503, and the worker's drain finishes it once the replica is back.
 */
let master: RedisServerProcess;
let replica: RedisServerProcess;
beforeAll(async () => {
  master = await startRedisServer();
  replica = await startRedisServer({ extraArgs: ['--replicaof', '127.0.0.1', new URL(master.url).port] });
  const probe = new Redis(master.url);
  for (let i = 0; i < 100 && !/connected_slaves:1/.test(await probe.info('replication')); i++) await new Promise((r) => setTimeout(r, 50));
  expect(await probe.info('replication')).toMatch(/connected_slaves:1/);
  probe.disconnect();
});
afterAll(async () => {
  replica.child.kill('SIGCONT');
  await replica.stop();
  await master.stop();
});

it('credits nothing while the replica cannot confirm the debit, and delivers once it can', async () => {
  const w = await shardWorld({ url: master.url, cluster: false }, 3, { RELAY_WAIT_MS: '200', ESCROW_IDLE_SECONDS: '3600' });
  try {
    const user = await userWithHome(w.ctx, 2, 'waiting');
    await w.deposit(user, 'USDT', 1000);
    replica.child.kill('SIGSTOP');
    const r = await w.place(user, { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 });
    expect([r.status, r.body.error.code]).toEqual([503, 'SHARD_NOT_DURABLE']);
    const [pending] = await w.ctx.funds.ledger.outbox(2);
    expect(pending).toMatchObject({ user, cur: 'USDT', from: 2, to: 1, amount: String(110e8) });
    expect(await w.ctx.redis.exists(w.ctx.shards.keys(1).transferCredit(pending.id))).toBe(0);
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 1000, reserved: 0 });
    const inFlight = await w.reconcile();
    expectReconciled(inFlight, false);
    expect(inFlight.find((c) => c.currencyCode === 'USDT')?.terms.inTransit).toBe(110);
    expect(await w.ctx.funds.relay?.drain(2, 0)).toBe(0);

    replica.child.kill('SIGCONT');
    // the worker drains every second; the resumed replica answers the next WAIT
    let delivered = 0;
    for (let i = 0; i < 20 && delivered === 0; i++) {
      delivered = (await w.ctx.funds.relay?.drain(2, 0)) ?? 0;
      if (!delivered) await new Promise((res) => setTimeout(res, 100));
    }
    expect(delivered).toBe(1);
    expectReconciled(await w.reconcile());
    const again = await w.place(user, { currencyPairCode: 'ETH_USDT', side: 'buy', type: 'limit', price: 100, amount: 1 });
    expect([again.status, again.body.status]).toEqual([200, 'open']);
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: 900, reserved: 100 });
    expectReconciled(await w.reconcile());
  } finally {
    await w.ctx.cleanup();
  }
});
