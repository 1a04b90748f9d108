import { shardOfPair, type Pair } from '../../domain/market';
import { Keys } from './keys';

/**
 * The engine shards of a deployment (ENGINE_SHARDS): the key builder of each, and the way from a
 * market to its shard's keys. Shard 0 is the one every store from before shards has, so a
 * deployment that grows keeps its data where it was.
 */
export class EngineShards {
  private readonly keysByShard: Keys[];

  constructor(
    readonly prefix: string,
    readonly count = 1,
  ) {
    if (!Number.isInteger(count) || count < 1) throw new Error(`ENGINE_SHARDS must be a whole number ≥ 1, got ${count}`);
    this.keysByShard = Array.from({ length: count }, (_, shard) => new Keys(prefix, shard));
  }

  /** The key builder of one shard; a shard outside 0..count−1 is a configuration error. */
  keys(shard: number): Keys {
    const keys = this.keysByShard[shard];
    if (!keys) throw new Error(`engine shard ${shard} is not configured (ENGINE_SHARDS=${this.count})`);
    return keys;
  }

  /** The key builder of the shard that runs a market. */
  keysOf(pair: Pick<Pair, 'engineShard'>): Keys {
    return this.keys(shardOfPair(pair));
  }

  /** Every shard's key builder, shard 0 first. */
  all(): readonly Keys[] {
    return this.keysByShard;
  }
}
