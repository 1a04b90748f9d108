import { Cluster } from 'ioredis';
import type { RedisClient } from '../../src/platform/redis/connection';
import type { ClusterNode } from '../../src/platform/redis/redis-cluster-process';
import { nodeOfSlot, slotMasters } from '../../src/platform/redis/shard-placement';
import { shardSlot } from '../../src/platform/redis/shard-tags';

/** Where the global setup leaves the test cluster's nodes (JSON ClusterNode[]) for the fault tests. */
export const CLUSTER_NODES_ENV = 'REDIS_CLUSTER_NODES';

/** Whether this run is on the 3-master cluster (REDIS_CLUSTER=1 or true). */
export function clusterRequested(): boolean {
  return /^(1|true)$/i.test(process.env.REDIS_CLUSTER ?? '');
}

/** The test cluster's nodes (masters first, then replicas), or [] on one Redis. */
export function testClusterNodes(): ClusterNode[] {
  const raw = process.env[CLUSTER_NODES_ENV];
  return raw ? (JSON.parse(raw) as ClusterNode[]) : [];
}

/** The node of `nodes` (the run's cluster by default) that serves `slot` now, as the cluster itself says (CLUSTER SLOTS). */
export async function nodeServingSlot(redis: RedisClient, slot: number, nodes = testClusterNodes()): Promise<ClusterNode | undefined> {
  if (!(redis instanceof Cluster)) return undefined;
  const node = nodeOfSlot(await slotMasters(redis), slot);
  return nodes.find((n) => node === `127.0.0.1:${n.port}`);
}

/** The master of `nodes` that holds engine shard `shard` now; fails when none does. */
export async function masterOfShard(redis: RedisClient, shard: number, nodes: ClusterNode[]): Promise<ClusterNode> {
  const node = await nodeServingSlot(redis, shardSlot(shard), nodes);
  if (!node) throw new Error(`no node of the test cluster serves engine shard ${shard}`);
  return node;
}

/** Resolves once `check` holds (an error counts as not yet: a cluster mid-failover refuses commands); throws after `ms`. */
export async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
