import { Cluster } from 'ioredis';
import type { RedisClient } from '../../src/platform/redis/connection';
import type { ClusterNode } from '../../src/platform/redis/redis-cluster-process';
import { nodeOfSlot, slotMasters } from '../../src/platform/redis/shard-placement';

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

/** The test cluster's node that serves `slot` now, as the cluster itself says (CLUSTER SLOTS). */
export async function nodeServingSlot(redis: RedisClient, slot: number): Promise<ClusterNode | undefined> {
  if (!(redis instanceof Cluster)) return undefined;
  const node = nodeOfSlot(await slotMasters(redis), slot);
  return testClusterNodes().find((n) => node === `127.0.0.1:${n.port}`);
}
