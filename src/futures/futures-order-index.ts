import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { FuturesKeyring } from './futures-keyring';
import { futuresOrderOf } from './futures-order-record';

/** Which of an account's opening orders to read: all of them, or those Created (10) or InPosition (50). */
export type AccountOrderStatus = 'open' | 'all';

/**
 * The one read of a futures account's orders: a range of the account's own indices, then its order
 * hashes, never a scan of everything its owner ever ordered. The Lua scripts keep the indices in
 * the same step as the orders (lua/includes/futures/accountIndex.lua): keys.futuresAccountOpenOrders
 * holds the opening orders that are Created or InPosition, keys.futuresAccountOrders those that
 * ended (an order goes there when it leaves the open index, so placing one writes one index); close
 * orders are in neither. The account's orders are the union of the two, read with AGGREGATE MIN so
 * an order in both (as every order of a deployment before the split is) reads once, at its id.
 * A user's orders are the union of their accounts' indices (an account's orders are all its
 * owner's, and accounts are never removed), so an order is indexed once, not per user and account.
 *
 * With several engine shards an account's indices exist on each shard it traded on (under that
 * shard's tag, beside its orders): each shard is read on its own and the lists merged oldest
 * first by creation time, then id (ids of two shards do not say which came first), so pages of the
 * merged list are exact. A shard that cannot answer fails the read, never a partial list.
 */
export class FuturesOrderIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
  ) {}

  /** The account's opening orders as stored, oldest first. */
  async accountOrders(
    accountId: string | number,
    { status = 'all' }: { status?: AccountOrderStatus } = {},
  ): Promise<Record<string, string>[]> {
    return this.merged((k) => (status === 'open' ? [k.futuresAccountOpenOrders(accountId)] : [k.futuresAccountOrders(accountId), k.futuresAccountOpenOrders(accountId)]));
  }

  /**
   * The user's account ids, ascending: the lists at home and, for a user whose home is elsewhere,
   * on shard 0 (FuturesKeyring.userAccountLists), one read each (two slots on a cluster).
   */
  async userAccountIds(userId: string): Promise<string[]> {
    const lists = await Promise.all((await this.keys.userAccountLists(userId)).map((key) => this.redis.smembers(key)));
    return [...new Set(lists.flat())].sort((a, b) => Number(a) - Number(b));
  }

  /** Every opening order of the user, in all their accounts, oldest first. */
  async userOrders(userId: string): Promise<Record<string, string>[]> {
    const accounts = await this.userAccountIds(userId);
    if (accounts.length === 0) return [];
    return this.merged((k) => accounts.flatMap((a) => [k.futuresAccountOrders(a), k.futuresAccountOpenOrders(a)]));
  }

  /** The ids of every opening order of the user, oldest first. */
  async userOrderIds(userId: string): Promise<string[]> {
    return (await this.userOrders(userId)).map((h) => h.id);
  }

  /** The orders that `indices` of each shard name, each once, oldest first. */
  private async merged(indices: (k: Keys) => string[]): Promise<Record<string, string>[]> {
    const shards = this.keys.all();
    const perShard = await Promise.all(shards.map(async (k) => this.records(k, await this.union(indices(k)))));
    if (perShard.length === 1) return perShard[0];
    return perShard.flat().sort((a, b) => Number(a.cts) - Number(b.cts) || Number(a.id) - Number(b.id));
  }

  /** The members of `indices` (one shard's) by id, each once (an order may sit in both of an account's indices). */
  private async union(indices: string[]): Promise<string[]> {
    if (indices.length === 1) return this.redis.zrange(indices[0], '0', '-1');
    // ioredis types ZUNION's AGGREGATE only together with WITHSCORES
    return (await this.redis.call('ZUNION', indices.length, ...indices, 'AGGREGATE', 'MIN')) as string[];
  }

  private async records(k: Keys, ids: string[]): Promise<Record<string, string>[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(k.order(id));
    return ((await pipeline.exec()) ?? []).map(([err, h]) => {
      if (err) throw err;
      return futuresOrderOf(h as Record<string, string>);
    });
  }
}
