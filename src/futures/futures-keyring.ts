import { shardOfId } from '../domain/shard-ids';
import type { MarketStore } from '../markets';
import type { Keys } from '../platform/redis/keys';

/**
 * Where futures state lives once futures markets run on every engine shard (docs/futures.md,
 * "Futures on engine shards"): a market's book, orders, positions, triggers, prices and funds on
 * the market's shard; each futures account's record (owner, currency, leverage, flags) and the
 * user's list of accounts at the user's home, the shard the account's id names (an account from
 * before shards names shard 0); the account's margin on a shard in the same-named hash under that
 * shard's tag.
 */
export class FuturesKeyring {
  constructor(
    private readonly markets: Pick<MarketStore, 'knownKeysOf' | 'allKeys'>,
    /** The user's home shard (src/wallet/home-registry.ts); 0 for one-shard tools. */
    private readonly homes: (userId: string) => Promise<number> = async () => 0,
  ) {}

  /** Every market and account on the one shard `keys` names: one-shard tools and key-layout checks. */
  static of(keys: Keys): FuturesKeyring {
    return new FuturesKeyring({ knownKeysOf: () => keys, allKeys: () => [keys] });
  }

  /**
   * The keys of the shard an account is registered on, the one its id names (src/domain/shard-ids.ts):
   * its record there is also its margin there. An id naming no shard of this deployment reads on
   * shard 0, where it is not found either.
   */
  ofAccount(id: string | number): Keys {
    return this.all()[shardOfId(String(id))] ?? this.all()[0];
  }

  /** The user's home shard, where new accounts are registered. */
  homeOf(userId: string): Promise<number> {
    return this.homes(userId);
  }

  /**
   * The keys of the user's account lists: the home's, and shard 0's when home is elsewhere (accounts
   * registered there before the registry moved home, and copy trading's, made on its copy shard).
   */
  async userAccountLists(userId: string): Promise<string[]> {
    const home = await this.homes(userId);
    const lists = [this.all()[home].userFuturesAccounts(userId)];
    if (home !== 0) lists.push(this.all()[0].userFuturesAccounts(userId));
    return lists;
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
    return this.all()[shardOfId(String(id))] ?? this.all()[0];
  }

  /** Every shard's keys, shard 0 first. */
  all(): readonly Keys[] {
    return this.markets.allKeys();
  }
}
