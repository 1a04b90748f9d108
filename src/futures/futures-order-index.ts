import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
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
 */
export class FuturesOrderIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  /** The account's opening orders as stored, oldest first (by id). */
  async accountOrders(
    accountId: string | number,
    { status = 'all' }: { status?: AccountOrderStatus } = {},
  ): Promise<Record<string, string>[]> {
    const open = this.keys.futuresAccountOpenOrders(accountId);
    if (status === 'open') return this.records(await this.redis.zrange(open, '0', '-1'));
    return this.records(await this.union([this.keys.futuresAccountOrders(accountId), open]));
  }

  /** Every opening order of the user, in all their accounts, oldest first (by id). */
  async userOrders(userId: string): Promise<Record<string, string>[]> {
    return this.records(await this.userOrderIds(userId));
  }

  /** The ids of every opening order of the user, oldest first: one ZUNION of their accounts' indices. */
  async userOrderIds(userId: string): Promise<string[]> {
    const accounts = await this.redis.smembers(this.keys.userFuturesAccounts(userId));
    if (accounts.length === 0) return [];
    return this.union(accounts.flatMap((a) => [this.keys.futuresAccountOrders(a), this.keys.futuresAccountOpenOrders(a)]));
  }

  /** The members of `indices` by id, each once (an order may sit in both of an account's indices). */
  private async union(indices: string[]): Promise<string[]> {
    // ioredis types ZUNION's AGGREGATE only together with WITHSCORES
    return (await this.redis.call('ZUNION', indices.length, ...indices, 'AGGREGATE', 'MIN')) as string[];
  }

  private async records(ids: string[]): Promise<Record<string, string>[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.order(id));
    return ((await pipeline.exec()) ?? []).map(([, h]) => futuresOrderOf(h as Record<string, string>));
  }
}
