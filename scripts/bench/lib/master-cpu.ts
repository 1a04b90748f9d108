import type Redis from 'ioredis';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../../src/platform/redis/connection';
import { commandStats, serverCpuSeconds, type CommandStat } from './redis-info';

/** Redis main-thread CPU per order, µs: on the master that used the most, over all, and per master. */
export interface CpuPerOrder {
  busiestCpuUs: number;
  allCpuUs: number;
  /** Per master, keyed `host:port`. */
  byMaster: Record<string, number>;
}

/** One command's share of a phase on one master: calls and in-command µs per order (INFO commandstats). */
export interface CommandShare {
  callsPerOrder: number;
  usecPerOrder: number;
}

/** Per master, the commands that ran during a phase, costliest first (commands inside a script count under their own names too). */
export type CommandsByMaster = Record<string, Record<string, CommandShare>>;

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

async function statsByMaster(nodes: Map<string, Redis>): Promise<Map<string, Map<string, CommandStat>>> {
  const out = new Map<string, Map<string, CommandStat>>();
  for (const [name, n] of nodes) out.set(name, await commandStats(n));
  return out;
}

/** The commandstats difference of each master over a phase, per order; the bench's own INFO calls left out. */
function commandsPerOrder(before: Map<string, Map<string, CommandStat>>, after: Map<string, Map<string, CommandStat>>, orders: number): CommandsByMaster {
  const out: CommandsByMaster = {};
  for (const [name, stats] of after) {
    const rows: [string, CommandShare][] = [];
    for (const [cmd, s] of stats) {
      if (cmd === 'info') continue;
      const b = before.get(name)?.get(cmd);
      const calls = s.calls - (b?.calls ?? 0);
      if (calls <= 0) continue;
      rows.push([cmd, { callsPerOrder: calls / orders, usecPerOrder: (s.usec - (b?.usec ?? 0)) / orders }]);
    }
    rows.sort((a, b) => b[1].usecPerOrder - a[1].usecPerOrder);
    out[name] = Object.fromEntries(rows);
  }
  return out;
}

/**
 * Runs `load` and divides each master's CPU over it by the orders it reports done; also each
 * master's commands per order (INFO commandstats), to tell where that CPU went.
 */
export async function measureCpu<T>(
  client: RedisClient,
  load: () => Promise<T>,
  ordersOf: (r: T) => number,
): Promise<CpuPerOrder & { result: T; elapsedMs: number; commands: CommandsByMaster }> {
  const nodes = masters(client);
  const statsBefore = await statsByMaster(nodes);
  const before = await cpuByMaster(nodes);
  const t0 = Date.now();
  const result = await load();
  const elapsedMs = Date.now() - t0;
  const after = await cpuByMaster(nodes);
  const statsAfter = await statsByMaster(nodes);
  const orders = Math.max(1, ordersOf(result));
  const byMaster: Record<string, number> = {};
  for (const [name, cpu] of after) byMaster[name] = ((cpu - (before.get(name) ?? cpu)) * 1e6) / orders;
  const perMaster = Object.values(byMaster);
  return {
    busiestCpuUs: Math.max(...perMaster),
    allCpuUs: perMaster.reduce((a, b) => a + b, 0),
    byMaster,
    result,
    elapsedMs,
    commands: commandsPerOrder(statsBefore, statsAfter, orders),
  };
}

/**
 * Each master's CPU while nothing is sent for `ms` (server cron, cluster bus, the clients' own
 * pings and blocking reads), µs per second: the floor that a slow phase's per-order figure carries.
 */
export async function idleCpuPerSecond(client: RedisClient, ms: number): Promise<Record<string, number>> {
  const nodes = masters(client);
  const before = await cpuByMaster(nodes);
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, ms));
  const elapsed = (Date.now() - t0) / 1000;
  const after = await cpuByMaster(nodes);
  const out: Record<string, number> = {};
  for (const [name, cpu] of after) out[name] = ((cpu - (before.get(name) ?? cpu)) * 1e6) / elapsed;
  return out;
}

/** One timed phase of a shards bench: wall-clock rate and Redis CPU per order. */
export interface PhaseResult extends CpuPerOrder {
  ordersPerSec: number;
  errors: number;
}
