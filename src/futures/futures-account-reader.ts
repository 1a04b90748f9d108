import BigNumber from 'bignumber.js';
import { futuresParams, type FuturesParams } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { FuturesKeyring } from './futures-keyring';
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
 * money and its opening orders with their mark. Copy trading reads futures through this. With
 * several engine shards an order is read on the shard its id names, a clientOrderId on every shard,
 * and the account's money is the sum of its hashes on every shard (a margin transfer between two
 * shards in flight is missed for its moment: FuturesAccountService.list counts it exactly).
 */
export class FuturesAccountReader {
  private readonly orderIndex: FuturesOrderIndex;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
    private readonly markets: MarketStore,
    private readonly prices: FuturesPriceService,
  ) {
    this.orderIndex = new FuturesOrderIndex(redis, keys);
  }

  async order(id: string | number): Promise<Record<string, string>> {
    return futuresOrderOf(await this.redis.hgetall(this.keys.ofOrder(id).order(id)));
  }

  /** The user's futures order placed with `clientOrderId`, or null. */
  async orderByClientId(userId: string, clientOrderId: string): Promise<Record<string, string> | null> {
    return (await this.ordersByClientIds([{ userId, clientOrderId }]))[0];
  }

  /** The account's opening orders that are Created or InPosition, hashes. */
  openOrders(accountId: string | number): Promise<Record<string, string>[]> {
    return this.orderIndex.accountOrders(accountId, { status: 'open' });
  }

  /**
   * `orderByClientId` of many at once (copy trading's fan-out), in two round trips per shard whatever
   * their number: each shard's registry of the clientOrderIds placed there (one is found on one shard;
   * the home's claim `@<shard>` of an order on another shard is no order).
   */
  async ordersByClientIds(wanted: { userId: string; clientOrderId: string }[]): Promise<(Record<string, string> | null)[]> {
    const out: (Record<string, string> | null)[] = wanted.map(() => null);
    for (const k of this.keys.all()) {
      const held = await this.each(wanted, (p, w) => p.hget(k.futuresClientOrderIds(w.userId), w.clientOrderId));
      const ids = held.map((id) => (typeof id === 'string' && !id.startsWith('@') ? id : null));
      const found = await this.each(ids.filter((id): id is string => !!id), (p, id) => p.hgetall(k.order(id)));
      let next = 0;
      ids.forEach((id, i) => {
        if (id) out[i] = futuresOrderOf(found[next++] as Record<string, string>);
      });
    }
    return out;
  }

  /** `openOrders` of many accounts at once, in two round trips per shard whatever their number. */
  async openOrdersOf(accountIds: string[]): Promise<Record<string, string>[][]> {
    const out: Record<string, string>[][] = accountIds.map(() => []);
    for (const k of this.keys.all()) {
      const lists = (await this.each(accountIds, (p, a) => p.zrange(k.futuresAccountOpenOrders(a), '0', '-1'))) as string[][];
      const hashes = ((await this.each(lists.flat(), (p, id) => p.hgetall(k.order(id)))) as Record<string, string>[]).map(futuresOrderOf);
      let next = 0;
      lists.forEach((ids, i) => out[i].push(...ids.map(() => hashes[next++])));
    }
    return out;
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
    const a = await this.redis.hgetall(this.keys.ofAccount(accountId).futuresAccount(accountId));
    if (!a.id) return null;
    const { balance, locked: inUse } = await this.margin(accountId, a);
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
    const free = balance;
    const locked = inUse;
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

  /** The account's free and used margin over every shard (`registry`: its hash on its registry shard, read already). */
  private async margin(accountId: string | number, registry: Record<string, string>): Promise<{ balance: BigNumber; locked: BigNumber }> {
    let balance = new BigNumber(registry.balance || 0);
    let locked = new BigNumber(registry.locked || 0);
    const home = this.keys.ofAccount(accountId);
    for (const k of this.keys.all()) {
      if (k === home) continue;
      const [b, l] = await this.redis.hmget(k.futuresAccount(accountId), 'balance', 'locked');
      balance = balance.plus(b ?? 0);
      locked = locked.plus(l ?? 0);
    }
    return { balance, locked };
  }
}
