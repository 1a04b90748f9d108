import { Cluster } from 'ioredis';
import type { Logger } from '../config/logger';
import type { RedisClient } from './connection';
import { shardSlot, shardTag } from './shard-tags';

/** Where one engine shard's keys live: its hash tag, that tag's slot, and the master serving it. */
export interface ShardPlacement {
  shard: number;
  tag: string;
  slot: number;
  /** `host:port` of the master that serves the slot (the one server off a cluster); null if none does. */
  node: string | null;
}

/** `host:port` of the master serving each slot range, as CLUSTER SLOTS reports it now. */
export async function slotMasters(cluster: Cluster): Promise<{ first: number; last: number; node: string }[]> {
  const ranges = await cluster.cluster('SLOTS');
  return ranges.map(([first, last, master]) => ({ first, last, node: `${master[0]}:${master[1]}` }));
}

/** The master serving `slot` on a cluster, or the one server. */
export function nodeOfSlot(ranges: { first: number; last: number; node: string }[], slot: number): string | null {
  return ranges.find((r) => slot >= r.first && slot <= r.last)?.node ?? null;
}

/** Every shard's placement, shard 0 first (CLUSTER SLOTS on a cluster; the server's address otherwise). */
export async function shardPlacements(redis: RedisClient, shardCount: number): Promise<ShardPlacement[]> {
  const single = redis instanceof Cluster ? undefined : `${redis.options.host ?? '127.0.0.1'}:${redis.options.port ?? 6379}`;
  const ranges = redis instanceof Cluster ? await slotMasters(redis) : [];
  return Array.from({ length: shardCount }, (_, shard) => {
    const slot = shardSlot(shard);
    return { shard, tag: shardTag(shard), slot, node: single ?? nodeOfSlot(ranges, slot) };
  });
}

/** Groups of shards that share one master (each group two or more shards), by node. */
export function sharedMasters(placements: ShardPlacement[]): { node: string; shards: number[] }[] {
  const byNode = new Map<string, number[]>();
  for (const p of placements) if (p.node) byNode.set(p.node, [...(byNode.get(p.node) ?? []), p.shard]);
  return [...byNode].filter(([, shards]) => shards.length > 1).map(([node, shards]) => ({ node, shards }));
}

/**
 * The start-up check of the placement rule (docs/architecture.md "Shard map"): on a cluster, engine shards that share a master
 * add no matching capacity, so each such group is logged at warn level, naming the shards and the
 * master (fixed by moving slots, docs/architecture.md "Shard map"). A slot no master serves is an
 * error line. One Redis has nothing to check. Returns the placements it read.
 */
export async function checkShardPlacement(redis: RedisClient, shardCount: number, log: Logger): Promise<ShardPlacement[]> {
  const placements = await shardPlacements(redis, shardCount);
  if (!(redis instanceof Cluster) || shardCount < 2) return placements;
  for (const p of placements.filter((x) => x.node === null)) {
    log.error({ shard: p.shard, tag: p.tag, slot: p.slot }, `engine shard ${p.shard}: no master serves slot ${p.slot}`);
  }
  for (const { node, shards } of sharedMasters(placements)) {
    log.warn({ node, shards }, `engine shards ${shards.join(', ')} share the master ${node}: move their slots to distinct masters`);
  }
  return placements;
}
