import BigNumber from 'bignumber.js';
import { futuresParams, type FuturesParams } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import { unrealizedMinor } from './futures-order-dto';
import { FuturesOrderIndex, type AccountOrderStatus } from './futures-order-index';
import type { FuturesPriceService } from './prices/futures-price.service';
import { futuresOrderOf } from './futures-order-record';

/** One opening futures order of an account (an order that is or was a position), with what reads it. */
export interface AccountOrder {
  h: Record<string, string>;
  pair: Pair;
  params: FuturesParams;
  mark: string | null;
}

/** A futures account as copy trading reads it: money in minor units of its margin currency. */
export interface AccountState {
  id: string;
  user: string;
  name: string;
  currency: string;
  leverage: number;
  decimals: number;
  free: BigNumber;
  locked: BigNumber;
  upnl: BigNumber;
  /** free + locked + unrealized pnl at mark */
  equity: BigNumber;
  orders: AccountOrder[];
}

/**
 * Read-only view of a futures account by account id (the futures services answer per user): its
 * money and its opening orders with their mark. Copy trading reads futures through this.
 */
export class FuturesAccountReader {
  private readonly orderIndex: FuturesOrderIndex;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
    private readonly prices: FuturesPriceService,
  ) {
    this.orderIndex = new FuturesOrderIndex(redis, keys);
  }

  async order(id: string | number): Promise<Record<string, string>> {
    return futuresOrderOf(await this.redis.hgetall(this.keys.order(id)));
  }

  /** The user's futures order placed with `clientOrderId`, or null. */
  async orderByClientId(userId: string, clientOrderId: string): Promise<Record<string, string> | null> {
    const id = await this.redis.hget(this.keys.futuresClientOrderIds(userId), clientOrderId);
    return id ? this.order(id) : null;
  }

  /** The account's opening orders that are Created or InPosition, hashes. */
  openOrders(accountId: string | number): Promise<Record<string, string>[]> {
    return this.orderIndex.accountOrders(accountId, { status: 'open' });
  }

  /** `orderByClientId` of many at once (copy trading's fan-out), in two round trips whatever their number. */
  async ordersByClientIds(wanted: { userId: string; clientOrderId: string }[]): Promise<(Record<string, string> | null)[]> {
    const ids = await this.each(wanted, (p, w) => p.hget(this.keys.futuresClientOrderIds(w.userId), w.clientOrderId));
    const found = await this.each(ids.filter((id): id is string => !!id), (p, id) => p.hgetall(this.keys.order(id)));
    let next = 0;
    return ids.map((id) => (id ? futuresOrderOf(found[next++] as Record<string, string>) : null));
  }

  /** `openOrders` of many accounts at once, in two round trips whatever their number. */
  async openOrdersOf(accountIds: string[]): Promise<Record<string, string>[][]> {
    const lists = (await this.each(accountIds, (p, a) => p.zrange(this.keys.futuresAccountOpenOrders(a), '0', '-1'))) as string[][];
    const hashes = ((await this.each(lists.flat(), (p, id) => p.hgetall(this.keys.order(id)))) as Record<string, string>[])
      .map(futuresOrderOf);
    let next = 0;
    return lists.map((ids) => ids.map(() => hashes[next++]));
  }

  /** One pipeline of one command per item; the replies in order (a failed command throws). */
  private async each<T>(items: T[], queue: (p: ReturnType<RedisClient['pipeline']>, item: T) => void): Promise<unknown[]> {
    if (items.length === 0) return [];
    const p = this.redis.pipeline();
    for (const item of items) queue(p, item);
    return ((await p.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return v;
    });
  }

  /**
   * The account's money and its orders: all of them, or with `status` 'open' only those Created or
   * InPosition (O(open orders): enough for its equity, which counts open positions only).
   */
  async state(
    accountId: string | number,
    marks = new Map<string, string | null>(),
    status: AccountOrderStatus = 'all',
  ): Promise<AccountState | null> {
    const a = await this.redis.hgetall(this.keys.futuresAccount(accountId));
    if (!a.id) return null;
    const orders: AccountOrder[] = [];
    let upnl = new BigNumber(0);
    for (const h of await this.orderIndex.accountOrders(a.id, { status })) {
      const pair = await this.markets.getPair('futures', h.pair);
      if (!pair) continue;
      if (!marks.has(pair.code)) marks.set(pair.code, await this.prices.markTicks(pair));
      const o: AccountOrder = { h, pair, params: futuresParams(pair), mark: marks.get(pair.code) ?? null };
      if (h.status === '50') upnl = upnl.plus(unrealizedMinor(h, o.params, o.mark));
      orders.push(o);
    }
    const free = new BigNumber(a.balance || 0);
    const locked = new BigNumber(a.locked || 0);
    return {
      id: a.id,
      user: a.user,
      name: a.name,
      currency: a.currency,
      leverage: Number(a.lev),
      decimals: (await this.markets.getCurrency(a.currency))?.decimals ?? 0,
      free,
      locked,
      upnl,
      equity: free.plus(locked).plus(upnl),
      orders,
    };
  }
}
