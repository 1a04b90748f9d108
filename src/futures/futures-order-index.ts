import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import { futuresOrderOf } from './futures-order-record';

/** Which of an account's opening orders to read: all of them, or those Created (10) or InPosition (50). */
export type AccountOrderStatus = 'open' | 'all';

/**
 * The one read of a futures account's orders: a range of the account's own index, then its order
 * hashes, never a scan of everything its owner ever ordered. The Lua scripts keep the indices in
 * the same step as the orders (keys.futuresAccountOrders, keys.futuresAccountOpenOrders); both hold
 * opening orders only (the orders that are or become positions), close orders are in neither.
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
    const index = status === 'open' ? this.keys.futuresAccountOpenOrders(accountId) : this.keys.futuresAccountOrders(accountId);
    return this.records(await this.redis.zrange(index, '0', '-1'));
  }

  /** Every opening order of the user, in all their accounts, oldest first (by id). */
  async userOrders(userId: string): Promise<Record<string, string>[]> {
    return this.records(await this.userOrderIds(userId));
  }

  /** The ids of every opening order of the user, oldest first: one ZUNION of their accounts' indices. */
  async userOrderIds(userId: string): Promise<string[]> {
    const accounts = await this.redis.smembers(this.keys.userFuturesAccounts(userId));
    if (accounts.length === 0) return [];
    return this.redis.zunion(accounts.length, accounts.map((a) => this.keys.futuresAccountOrders(a)));
  }

  private async records(ids: string[]): Promise<Record<string, string>[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.order(id));
    return ((await pipeline.exec()) ?? []).map(([, h]) => futuresOrderOf(h as Record<string, string>));
  }
}
