import calculateSlot from 'cluster-key-slot';

/** Redis Cluster's slot count. */
export const CLUSTER_SLOTS = 16384;

/**
 * The hash tag of an engine shard (without braces). Fixed for a shard forever, whatever
 * ENGINE_SHARDS is, because every key of the shard's markets and users carries it.
 *
 * Shard 0 keeps `e0` (slot 652), the tag of every store from before shards. Shard i ≥ 1 takes the
 * first of `e<i>`, `e<i>.1`, `e<i>.2`… whose slot lies in the (i mod 3)-th third of the slot space:
 * on a cluster of three masters with the even split `redis-cli --cluster create` makes, shards 0, 1
 * and 2 then sit on three distinct masters (a plain `e1` hashes to slot 4781, the first master's,
 * as `e0` does). Other layouts are checked at start (shard placement) and fixed by moving slots.
 */
export function shardTag(shard: number): string {
  if (!Number.isInteger(shard) || shard < 0) throw new Error(`bad engine shard ${shard}`);
  if (shard === 0) return 'e0';
  const third = shard % 3;
  const lo = Math.ceil((third * CLUSTER_SLOTS) / 3);
  const hi = Math.ceil(((third + 1) * CLUSTER_SLOTS) / 3);
  for (let k = 0; ; k++) {
    const tag = k === 0 ? `e${shard}` : `e${shard}.${k}`;
    const slot = calculateSlot(tag);
    if (slot >= lo && slot < hi) return tag;
  }
}

/** The cluster slot of an engine shard's keys. */
export function shardSlot(shard: number): number {
  return calculateSlot(shardTag(shard));
}
