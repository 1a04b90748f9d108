import { Cluster } from 'ioredis';
import type { RedisClient } from '../../src/platform/redis/connection';
import type { ClusterNode } from '../../src/platform/redis/redis-cluster-process';

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

/** The node (port) that serves `slot` now, as the cluster itself says (CLUSTER SLOTS). */
export async function masterPortOfSlot(redis: RedisClient, slot: number): Promise<number | undefined> {
  if (!(redis instanceof Cluster)) return undefined;
  const ranges = (await redis.cluster('SLOTS')) as [number, number, [string, number]][];
  const range = ranges.find(([first, last]) => slot >= first && slot <= last);
  return range?.[2][1];
}
