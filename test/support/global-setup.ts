import { startRedisServer } from '../../src/platform/redis/redis-server-process';
import { startRedisCluster } from '../../src/platform/redis/redis-cluster-process';
import { clusterRequested, CLUSTER_NODES_ENV } from './test-cluster';

/**
 * Starts a private redis-server for the whole run, unless REDIS_URL points at one already. With
 * REDIS_CLUSTER=1 it is a real 3-master Redis Cluster instead (one replica per master with
 * REDIS_CLUSTER_REPLICAS=1): REDIS_URL is then its seed, and REDIS_CLUSTER_NODES describes its
 * nodes for the fault tests (test/support/test-cluster.ts).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  if (clusterRequested()) {
    const cluster = await startRedisCluster({
      masters: 3,
      replicasPerMaster: Number(process.env.REDIS_CLUSTER_REPLICAS ?? 0),
    }).catch((err: Error) => {
      throw new Error(`${err.message}; install redis-server (7.0 or newer) or set REDIS_URL`);
    });
    process.env.REDIS_URL = cluster.url;
    process.env[CLUSTER_NODES_ENV] = JSON.stringify(cluster.nodes);
    (globalThis as Record<string, unknown>).__TEST_REDIS__ = cluster;
    return;
  }
  const server = await startRedisServer().catch((err: Error) => {
    throw new Error(`${err.message}; install redis-server or set REDIS_URL`);
  });
  process.env.REDIS_URL = server.url;
  (globalThis as Record<string, unknown>).__TEST_REDIS__ = server;
}
