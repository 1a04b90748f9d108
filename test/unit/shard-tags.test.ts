import calculateSlot from 'cluster-key-slot';
import { CLUSTER_SLOTS, shardSlot, shardTag } from '../../src/platform/redis/shard-tags';

/** The master that owns a slot when a cluster of `masters` splits the slots evenly (redis-cli --cluster create). */
const evenSplitMaster = (slot: number, masters: number) => Math.floor((slot * masters) / CLUSTER_SLOTS);

describe('engine shard tags', () => {
  it('shard 0 keeps the tag of every store from before shards', () => {
    expect(shardTag(0)).toBe('e0');
  });

  it('each tag hashes to its own slot, and shards 0..2 land on three distinct masters of an even split', () => {
    const masters = [0, 1, 2].map((s) => evenSplitMaster(shardSlot(s), 3));
    expect(new Set(masters).size).toBe(3);
    for (let s = 0; s < 12; s++) expect(shardSlot(s)).toBe(calculateSlot(`{${shardTag(s)}}:x`));
  });

  it('tags are fixed per shard and distinct', () => {
    const tags = Array.from({ length: 32 }, (_, s) => shardTag(s));
    expect(new Set(tags).size).toBe(32);
    expect(tags.map((_, s) => shardTag(s))).toEqual(tags);
    expect(() => shardTag(-1)).toThrow();
  });
});
