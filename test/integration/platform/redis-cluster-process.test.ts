import Redis, { Cluster } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import {
  clusterNodePid,
  killClusterNode,
  pauseClusterNode,
  resumeClusterNode,
  restartClusterNode,
  startRedisCluster,
  type RedisClusterProcess,
} from '../../../src/platform/redis/redis-cluster-process';
import { deleteByPrefix } from '../../../src/platform/redis/redis-server-process';
import { shardSlot, shardTag } from '../../../src/platform/redis/shard-tags';
import { nodeOfSlot, slotMasters } from '../../../src/platform/redis/shard-placement';

/** The cluster starter behind REDIS_CLUSTER=1 and bench:shards: a real cluster, shards on distinct masters. */
describe('startRedisCluster', () => {
  let cluster: RedisClusterProcess;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    const seed = new URL(cluster.url);
    client = new Cluster([{ host: seed.hostname, port: Number(seed.port) }]);
  });

  afterAll(async () => {
    await client?.quit();
    await cluster?.stop();
  });

  it('forms a 3-master cluster with every slot served', async () => {
    const info = (await client.cluster('INFO')) as string;
    expect(info).toMatch(/cluster_state:ok/);
    expect(info).toMatch(/cluster_slots_assigned:16384/);
    expect(info).toMatch(/cluster_size:3/);
    expect(cluster.nodes).toHaveLength(3);
  });

  it('puts the tags of shards 0, 1 and 2 on three distinct masters', async () => {
    const ranges = await slotMasters(client);
    const ports = [0, 1, 2].map((s) => Number(nodeOfSlot(ranges, shardSlot(s))?.split(':')[1]));
    expect(ports.every((p) => p > 0)).toBe(true);
    expect(new Set(ports).size).toBe(3);
    expect(ports.map((p) => cluster.nodes.some((n) => n.port === p))).toEqual([true, true, true]);
  });

  it('cleans a prefix on every master, keys of many slots included', async () => {
    const keys = [0, 1, 2].map((s) => `tclean:{${shardTag(s)}}:k`).concat(['tclean:{x}:a', 'tclean:{y}:b', 'keep:{x}:c']);
    expect(new Set(keys.map((k) => calculateSlot(k))).size).toBeGreaterThan(3);
    for (const k of keys) await client.set(k, '1');
    await deleteByPrefix(client, 'tclean');
    const left = await Promise.all(keys.map((k) => client.exists(k)));
    expect(left).toEqual([0, 0, 0, 0, 0, 1]);
    await client.del('keep:{x}:c');
  });

  it('restarts a killed master from its AOF, data and slots intact', async () => {
    const slot = shardSlot(1);
    const key = `taof:{${shardTag(1)}}:v`;
    await client.set(key, 'kept');
    const port = Number(nodeOfSlot(await slotMasters(client), slot)?.split(':')[1]);
    const node = cluster.nodes.find((n) => n.port === port)!;
    const before = clusterNodePid(node);
    expect(before).toBeGreaterThan(0);
    killClusterNode(node);
    await waitFor(() => clusterNodePid(node) !== before);
    await restartClusterNode(node);
    expect(clusterNodePid(node)).not.toBe(before);
    await waitFor(async () => (await client.get(key).catch(() => null)) === 'kept');
    expect(await client.get(key)).toBe('kept');
    await client.del(key);
  });

  it('with a replica per master, promotes the replica of a killed master, the data with it', async () => {
    const other = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    const seed = new URL(other.url);
    const c = new Cluster([{ host: seed.hostname, port: Number(seed.port) }]);
    try {
      expect(other.nodes.filter((n) => n.replicaOf !== undefined)).toHaveLength(3);
      const key = `tfail:{${shardTag(2)}}:v`;
      await c.set(key, 'replicated');
      const port = Number(nodeOfSlot(await slotMasters(c), shardSlot(2))?.split(':')[1]);
      const master = other.nodes.find((n) => n.port === port)!;
      const replica = other.nodes.find((n) => n.replicaOf === port)!;
      // WAIT on the connection that wrote: the replica holds the write before its master dies
      const masterConn = c.nodes('master').find((n) => n.options.port === port)!;
      expect(await masterConn.call('WAIT', '1', '2000')).toBe(1);
      killClusterNode(master);
      await waitFor(async () => nodeOfSlot(await slotMasters(c).catch(() => []), shardSlot(2)) === `127.0.0.1:${replica.port}`, 20_000);
      await waitFor(async () => (await c.get(key).catch(() => null)) === 'replicated', 10_000);
      expect(await c.get(key)).toBe('replicated');
    } finally {
      c.disconnect();
      await other.stop();
    }
    expect(other.nodes.map(clusterNodePid)).toEqual(other.nodes.map(() => undefined));
  });

  it('pauses a node (nothing answers) and resumes it where it was', async () => {
    const key = `tpause:{${shardTag(0)}}:v`;
    await client.set(key, 'before');
    const port = Number(nodeOfSlot(await slotMasters(client), shardSlot(0))?.split(':')[1]);
    const node = cluster.nodes.find((n) => n.port === port)!;
    const direct = new Redis(port, '127.0.0.1', { commandTimeout: 300, maxRetriesPerRequest: 0 });
    try {
      await direct.ping();
      pauseClusterNode(node);
      await expect(direct.get(key)).rejects.toThrow(/timed out/i);
      resumeClusterNode(node);
      await waitFor(async () => (await direct.get(key).catch(() => null)) === 'before');
      expect(await client.get(key)).toBe('before');
    } finally {
      resumeClusterNode(node);
      direct.disconnect();
      await client.del(key);
    }
  });

  it('stops every node by its pid', async () => {
    const other = await startRedisCluster({ masters: 3 });
    const pids = other.nodes.map(clusterNodePid);
    expect(pids.every((p) => typeof p === 'number')).toBe(true);
    await other.stop();
    expect(other.nodes.map(clusterNodePid)).toEqual([undefined, undefined, undefined]);
  });
});

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
