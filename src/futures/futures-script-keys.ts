import type { FuturesKeyring } from './futures-keyring';

/**
 * KEYS of the futures scripts, from keys.ts in their headers' order (the cluster contract, docs/architecture.md#keys-and-scale-out:
 * every key a caller can know is passed, the script builds only those it meets while running).
 * Every script that works on a market takes the market's 22 keys first, in the order
 * lua/includes/futures/commandKeys.lua reads them; they are built once per pair. Every key of a
 * market's script is under the market's shard's tag: the account, order and clientOrderId keys
 * too (the account's margin on that shard, src/futures/futures-keyring.ts).
 */
export class FuturesScriptKeys {
  private readonly byPair = new Map<string, readonly string[]>();

  constructor(private readonly keys: FuturesKeyring) {}

  /** KEYS[1..22]: pair hash, book, levels, book sequence, events, last price, ids, money, trigger indices, an unused slot. */
  market(pair: string): readonly string[] {
    let keys = this.byPair.get(pair);
    if (!keys) {
      const k = this.keys.ofPair(pair);
      keys = Object.freeze([
        k.pair('futures', pair),
        k.book('futures', pair, 'bids'), k.book('futures', pair, 'asks'),
        k.levels('futures', pair, 'bids'), k.levels('futures', pair, 'asks'),
        k.levelQty('futures', pair, 'bids'), k.levelQty('futures', pair, 'asks'),
        k.bookSeq('futures', pair), k.events('futures', pair), k.lastPrice('futures', pair),
        k.orderIds(), k.tradeIds(), k.feesCollected(), k.insuranceFund(), k.futuresPnlPool(),
        k.futuresTrigger(pair, 'tpL'), k.futuresTrigger(pair, 'tpS'),
        k.futuresTrigger(pair, 'slL'), k.futuresTrigger(pair, 'slS'),
        k.futuresTrigger(pair, 'liqL'), k.futuresTrigger(pair, 'liqS'),
        k.futuresActive(pair), // unused (lua/includes/futures/commandKeys.lua)
      ]);
      this.byPair.set(pair, keys);
    }
    return keys;
  }

  /**
   * lua/futures/createFuturesOrders-22+4n.lua, per order after the market's keys: the user's
   * clientOrderIds, then the account's hash, orders and open orders (a user's orders are the union
   * of their accounts' indices: FuturesOrderIndex.userOrders).
   */
  createOrderItem(pair: string, userId: string, accountId: string): string[] {
    const k = this.keys.ofPair(pair);
    return [
      k.futuresClientOrderIds(userId),
      k.futuresAccount(accountId), k.futuresAccountOrders(accountId), k.futuresAccountOpenOrders(accountId),
    ];
  }

  /** lua/futures/closeFuturesPosition-26.lua: the market's keys, then the order's, its account's, its owner's. */
  close(pair: string, userId: string, orderId: string, accountId: string): string[] {
    const k = this.keys.ofPair(pair);
    return [
      ...this.market(pair),
      k.order(orderId), k.futuresAccount(accountId), k.futuresAccountOpenOrders(accountId),
      k.futuresClientOrderIds(userId),
    ];
  }

  /** lua/futures/updateFuturesTrigger-23.lua: the market's keys, then the order hash. */
  updateTrigger(pair: string, orderId: string): string[] {
    return [...this.market(pair), this.keys.ofPair(pair).order(orderId)];
  }

  /** lua/futures/settleFuturesFunding-23.lua: the market's keys, then its funding state. */
  funding(pair: string): string[] {
    return [...this.market(pair), this.keys.ofPair(pair).fundingState(pair)];
  }
}
