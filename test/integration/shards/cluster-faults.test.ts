import Redis from 'ioredis';
import request from 'supertest';
import {
  killClusterNode,
  pauseClusterNode,
  restartClusterNode,
  resumeClusterNode,
  startRedisCluster,
  type ClusterNode,
  type RedisClusterProcess,
} from '../../../src/platform/redis/redis-cluster-process';
import { ShardLinks } from '../../../src/platform/redis/shard-links';
import { newTransfer, TransferLedger } from '../../../src/wallet/transfer-ledger';
import { bearer } from '../../support/harness';
import { masterOfShard, until } from '../../support/test-cluster';
import { drainAll, expectOrdersPresent, expectReconciled, orderLoad, shardWorld, userWithHome } from './shard-fixture';

/**
 * Transfer faults on a real 3-master Redis Cluster, each engine shard's tag on a master of its own
 * (docs/architecture.md, "Transfer failures"). Each suite starts its cluster, since it kills and
 * pauses nodes; every test ends with the reconciler's invariant exact per currency and nothing in
 * transit. Seeded markets with ENGINE_SHARDS=3: BTC_USDT on shard 0, ETH_USDT on 1, BTC_USDT.TRC20 on 2.
 */
type World = Awaited<ReturnType<typeof shardWorld>>;

const buy = (pair: string, price: number, amount: number) => ({ currencyPairCode: pair, side: 'buy', type: 'limit', price, amount });
const escrowOf = async (w: World, shard: number, user: string, cur = 'USDT') =>
  Number((await w.ctx.redis.hget(w.ctx.shards.keys(shard).walletAvailable(user), cur)) ?? '0');
const reservedOf = async (w: World, shard: number, user: string, cur = 'USDT') =>
  Number((await w.ctx.redis.hget(w.ctx.shards.keys(shard).walletReserved(user), cur)) ?? '0');

/** A connection straight to one node, for what a test does behind the service's back. */
function direct(node: ClusterNode): Redis {
  const c = new Redis(node.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  c.on('error', () => undefined);
  return c;
}

describe('on a cluster whose masters run appendfsync always', () => {
  let cluster: RedisClusterProcess;
  let w: World;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, appendfsync: 'always' });
  });
  afterAll(async () => cluster?.stop());
  beforeEach(async () => {
    w = await shardWorld({ url: cluster.url, cluster: true }, 3, {
      ESCROW_IDLE_SECONDS: '3600', ESCROW_HEADROOM_PERCENT: '0', REDIS_COMMAND_TIMEOUT_MS: '1000',
    });
  });
  afterEach(async () => w.ctx.cleanup());

  it('counts transfers whose relay died between debit and credit in transit, then credits each once when every outbox entry is delivered twice at once', async () => {
    const users = [await userWithHome(w.ctx, 0, 'r0-'), await userWithHome(w.ctx, 1, 'r1-'), await userWithHome(w.ctx, 2, 'r2-')];
    for (const u of users) await w.deposit(u, 'USDT', 1000);
    // step 1 only, from every home to both other shards: the process that sent them died there
    for (const [home, u] of users.entries()) {
      for (const to of [0, 1, 2].filter((s) => s !== home)) {
        expect(await w.ctx.funds.ledger.send(newTransfer(u, 'USDT', home, to), 'exact', String(100e8), String(100e8))).toBe(String(100e8));
      }
    }
    const inFlight = await w.reconcile();
    expectReconciled(inFlight, false);
    expect(inFlight.find((c) => c.currencyCode === 'USDT')?.terms).toMatchObject({ inTransit: 600, home: 2400, escrow: 0, deposits: 3000 });

    const relay = w.ctx.funds.relay as NonNullable<typeof w.ctx.funds.relay>;
    for (let shard = 0; shard < 3; shard++) {
      const pending = await w.ctx.funds.ledger.outbox(shard);
      expect(pending).toHaveLength(2);
      await Promise.all(pending.flatMap((t) => [relay.deliver(t), relay.deliver(t)]));
    }
    for (const [home, u] of users.entries()) {
      for (let shard = 0; shard < 3; shard++) expect([u, shard, await escrowOf(w, shard, u)]).toEqual([u, shard, shard === home ? 800e8 : 100e8]);
    }
    expect((await Promise.all([0, 1, 2].map((s) => w.ctx.funds.ledger.outbox(s)))).flat()).toEqual([]);
    expectReconciled(await w.reconcile());
  });

  it("keeps every acknowledged order after a master is SIGKILLed mid-load and restarted from its AOF, and reconciles", async () => {
    const users = [await userWithHome(w.ctx, 0, 'k0-'), await userWithHome(w.ctx, 1, 'k1-'), await userWithHome(w.ctx, 2, 'k2-')];
    for (const u of users) await w.deposit(u, 'USDT', 100_000);
    // shard 1's master: ETH_USDT's book, the escrow top-ups are credited to, and the home of users[1]
    const victim = await masterOfShard(w.ctx.redis, 1, cluster.nodes);
    const load = orderLoad(w, users);
    await new Promise((res) => setTimeout(res, 500));
    killClusterNode(victim);
    // back before the cluster's node timeout (2 s) marks it failed: the cluster never leaves state ok for long
    await new Promise((res) => setTimeout(res, 300));
    await restartClusterNode(victim, { appendfsync: 'always' });
    await new Promise((res) => setTimeout(res, 300));
    const acknowledged = await load.stop();
    expect(acknowledged.length).toBeGreaterThan(0);
    await drainAll(w);
    await expectOrdersPresent(w, acknowledged);
    expectReconciled(await w.reconcile());
  });
});

describe('on a cluster with one replica per master (durability by WAIT)', () => {
  let cluster: RedisClusterProcess;
  let w: World;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
  });
  afterAll(async () => {
    for (const n of cluster?.nodes ?? []) resumeClusterNode(n);
    await cluster?.stop();
  });
  beforeEach(async () => {
    w = await shardWorld({ url: cluster.url, cluster: true }, 3, {
      ESCROW_IDLE_SECONDS: '3600', ESCROW_HEADROOM_PERCENT: '0', RELAY_WAIT_MS: '300', REDIS_COMMAND_TIMEOUT_MS: '3000',
    });
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await w.ctx.cleanup();
  });

  it("credits a top-up once when the target shard's master is paused during the relay's WAIT", async () => {
    const user = await userWithHome(w.ctx, 2, 'paused');
    await w.deposit(user, 'USDT', 1000);
    const target = await masterOfShard(w.ctx.redis, 1, cluster.nodes);
    const durable = ShardLinks.prototype.durable;
    let paused = 0;
    // right as the relay asks shard 1's replica to confirm the credit: its master stops for a second
    jest.spyOn(ShardLinks.prototype, 'durable').mockImplementation(async function (this: ShardLinks, shard, link) {
      if (shard === 1 && paused++ === 0) {
        pauseClusterNode(target);
        setTimeout(() => resumeClusterNode(target), 1000);
      }
      return durable.call(this, shard, link);
    });
    const r = await w.place(user, buy('ETH_USDT', 100, 1));
    expect(paused).toBeGreaterThan(0);
    // the WAIT either saw the replica once the master woke, or timed out first: then the outbox keeps the transfer
    if (r.status !== 200) expect([r.status, r.body.error.code]).toEqual([503, 'SHARD_NOT_DURABLE']);
    await drainAll(w);
    // credited exactly once: 100 on shard 1, reserved by the order or free there
    expect((await escrowOf(w, 1, user)) + (await reservedOf(w, 1, user))).toBe(100e8);
    expect((await w.balances(user)).USDT).toEqual({ currencyCode: 'USDT', available: r.status === 200 ? 900 : 1000, reserved: r.status === 200 ? 100 : 0 });
    expectReconciled(await w.reconcile());
  });

  it('after a master is killed and its replica promoted: WAIT-confirmed steps survive and are not credited again, a debit the replica never got is never credited', async () => {
    const home = 2;
    const user = await userWithHome(w.ctx, home, 'promoted');
    await w.deposit(user, 'USDT', 1000);
    await w.deposit(user, 'USDT.TRC20', 1000);
    const master = await masterOfShard(w.ctx.redis, home, cluster.nodes);
    const replica = cluster.nodes.find((n) => n.replicaOf === master.port) as ClusterNode;
    const onMaster = direct(master);
    /** Every write the master made so far is on its replica (replication is ordered: one write of ours, then WAIT). */
    const replicated = async () => {
      await onMaster.set(`${w.ctx.shards.keys(home).engine}sync`, '1');
      expect(Number(await onMaster.call('WAIT', 1, 2000))).toBe(1);
    };
    try {
      await replicated();
      // a top-up to shard 1 whose debit and credit a replica confirms; right before its outbox entry
      // is acknowledged, the replica is cut off (stopped, and its link dropped by the master), so
      // the acknowledgement and everything after it reach the master alone
      let unacked = '';
      // the relay acknowledges in batches per sending shard (ackAll); this one carries the single top-up
      const ackAll = TransferLedger.prototype.ackAll;
      jest.spyOn(TransferLedger.prototype, 'ackAll').mockImplementation(async function (this: TransferLedger, shard, ts) {
        if (!unacked) {
          unacked = ts[0].id;
          pauseClusterNode(replica);
          await onMaster.call('CLIENT', 'KILL', 'TYPE', 'replica');
        }
        return ackAll.call(this, shard, ts);
      });
      const confirmed = await w.place(user, buy('ETH_USDT', 100, 1));
      expect([confirmed.status, confirmed.body.status]).toEqual([200, 'open']);
      expect(unacked).not.toBe('');
      // a second top-up is debited at home, but no replica confirms it: 503, nothing credited
      const unconfirmed = await w.place(user, buy('ETH_USDT', 100, 2));
      expect([unconfirmed.status, unconfirmed.body.error.code]).toEqual([503, 'SHARD_NOT_DURABLE']);
      const [lost] = await w.ctx.funds.ledger.outbox(home);
      expect(lost).toMatchObject({ user, from: home, to: 1, amount: String(200e8) });
      expect(await w.ctx.redis.exists(w.ctx.shards.keys(1).transferCredit(lost.id))).toBe(0);
      // an order at home acknowledged without WAIT: only the master has it
      const unreplicated = await w.place(user, buy('BTC_USDT.TRC20', 100, 1));
      expect([unreplicated.status, unreplicated.body.status]).toEqual([200, 'open']);

      killClusterNode(master);
      resumeClusterNode(replica);
      await until('the replica promoted', async () => (await masterOfShard(w.ctx.redis, home, cluster.nodes)).port === replica.port);
      // the old master comes back as the new master's replica, so WAIT can confirm again
      await restartClusterNode(master);
      const promoted = direct(replica);
      try {
        await until('the old master replicating', async () => /connected_slaves:1/.test(await promoted.info('replication')));
      } finally {
        promoted.disconnect();
      }

      // the promoted master has the confirmed top-up's debit, its acknowledgement lost: it is delivered again
      expect((await w.ctx.funds.ledger.outbox(home)).map((t) => t.id)).toEqual([unacked]);
      await drainAll(w);
      // the unconfirmed debit is gone with the master: nothing to deliver, and a delivery of it credits nothing
      await expect(w.ctx.funds.relay?.deliver(lost)).rejects.toMatchObject({ status: 503, code: 'TRANSFER_LOST' });
      expect(await w.ctx.redis.exists(w.ctx.shards.keys(1).transferCredit(lost.id))).toBe(0);
      // the confirmed top-up is credited once, redelivered or not: its 100 reserved on shard 1, nothing more there
      expect([await escrowOf(w, 1, user), await reservedOf(w, 1, user)]).toEqual([0, 100e8]);
      await expectOrdersPresent(w, [{ user, id: confirmed.body.id }]);
      // what an asynchronous replica can lose: the order acknowledged without WAIT, with its reservation
      const gone = await request(w.app).get(`/api/orders/${unreplicated.body.id}`).set('Authorization', bearer(user));
      expect(gone.status).toBe(404);
      const balances = await w.balances(user);
      expect([balances.USDT, balances['USDT.TRC20']]).toEqual([
        { currencyCode: 'USDT', available: 900, reserved: 100 },
        { currencyCode: 'USDT.TRC20', available: 1000, reserved: 0 },
      ]);
      expectReconciled(await w.reconcile());
    } finally {
      resumeClusterNode(replica);
      onMaster.disconnect();
    }
  });
});
