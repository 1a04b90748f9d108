import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../../src/platform/redis/connection';
import { serverCpuSeconds } from './redis-info';

/** Redis main-thread CPU per order, µs: on the master that used the most, over all, and per master. */
export interface CpuPerOrder {
  busiestCpuUs: number;
  allCpuUs: number;
  /** Per master, keyed `host:port`. */
  byMaster: Record<string, number>;
}

/** Every server that runs scripts: a cluster's masters, keyed `host:port`, or the one server. */
export function masters(client: RedisClient): Map<string, Redis> {
  if (!(client instanceof Cluster)) return new Map([[`${client.options.host}:${client.options.port}`, client]]);
  return new Map(client.nodes('master').map((n) => [`${n.options.host}:${n.options.port}`, n]));
}

export async function cpuByMaster(nodes: Map<string, Redis>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [name, n] of nodes) out.set(name, await serverCpuSeconds(n));
  return out;
}

/** Runs `load` and divides each master's CPU over it by the orders it reports done. */
export async function measureCpu<T>(client: RedisClient, load: () => Promise<T>, ordersOf: (r: T) => number): Promise<CpuPerOrder & { result: T; elapsedMs: number }> {
  const nodes = masters(client);
  const before = await cpuByMaster(nodes);
  const t0 = Date.now();
  const result = await load();
  const elapsedMs = Date.now() - t0;
  const after = await cpuByMaster(nodes);
  const orders = Math.max(1, ordersOf(result));
  const byMaster: Record<string, number> = {};
  for (const [name, cpu] of after) byMaster[name] = ((cpu - (before.get(name) ?? cpu)) * 1e6) / orders;
  const perMaster = Object.values(byMaster);
  return { busiestCpuUs: Math.max(...perMaster), allCpuUs: perMaster.reduce((a, b) => a + b, 0), byMaster, result, elapsedMs };
}

/** One timed phase of a shards bench: wall-clock rate and Redis CPU per order. */
export interface PhaseResult extends CpuPerOrder {
  ordersPerSec: number;
  errors: number;
}
