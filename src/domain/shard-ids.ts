/**
 * Ids that stay unique across engine shards without a shared counter: shard i's counters (orders,
 * trades) start at i × SHARD_ID_SPAN, so an id names its shard. Shard 0 starts at 0, so every id of
 * a store from before shards still reads as shard 0's. 64 shards × 10^14 stays below 2^53, the
 * largest integer a Lua script counts exactly.
 */
export const SHARD_ID_SPAN = 100_000_000_000_000;

/** The first value of shard `shard`'s id counters (the counter's value before its first INCR). */
export const shardIdBase = (shard: number): number => shard * SHARD_ID_SPAN;

/** The shard an engine id (decimal text) was made on. */
export function shardOfId(id: string): number {
  return id.length <= 14 ? 0 : Number(id.slice(0, id.length - 14));
}

/** Ids grouped by the shard they name, each group in the ids' order (one pipeline per group: a cluster pipeline stays on one slot's node). */
export function idsByShard(ids: readonly string[]): Map<number, string[]> {
  const groups = new Map<number, string[]>();
  for (const id of ids) {
    const shard = shardOfId(id);
    groups.set(shard, [...(groups.get(shard) ?? []), id]);
  }
  return groups;
}
