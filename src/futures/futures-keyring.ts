import { shardOfId } from '../domain/shard-ids';
import type { MarketStore } from '../markets';
import type { Keys } from '../platform/redis/keys';

/**
 * Where futures state lives once futures markets run on every engine shard (docs/futures.md,
 * "Futures on engine shards"): a market's book, orders, positions, triggers, prices and funds on
 * the market's shard; each futures account's record (ids, owner, currency, leverage, flags) and the
 * user's list of accounts on shard 0, the registry, as the pair registry is; the account's margin on
 * a shard in the same-named hash under that shard's tag.
 */
export class FuturesKeyring {
  constructor(private readonly markets: Pick<MarketStore, 'knownKeysOf' | 'allKeys'>) {}

  /** Every market and account on the one shard `keys` names: one-shard tools and key-layout checks. */
  static of(keys: Keys): FuturesKeyring {
    return new FuturesKeyring({ knownKeysOf: () => keys, allKeys: () => [keys] });
  }

  /** Shard 0's keys: the futures account registry (and everything futures before shards). */
  get registry(): Keys {
    return this.markets.allKeys()[0];
  }

  /** The keys of the shard that runs a futures market this process has read (MarketStore.knownKeysOf). */
  ofPair(code: string): Keys {
    return this.markets.knownKeysOf('futures', code);
  }

  /**
   * The keys of the shard an order id was made on (src/domain/shard-ids.ts); an id naming no shard of
   * this deployment reads on shard 0, where it is not found either.
   */
  ofOrder(id: string | number): Keys {
    return this.all()[shardOfId(String(id))] ?? this.registry;
  }

  /** Every shard's keys, shard 0 first. */
  all(): readonly Keys[] {
    return this.markets.allKeys();
  }
}
