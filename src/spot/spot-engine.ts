import type { ChainableCommander } from 'ioredis';
import { Histogram } from 'prom-client';
import type { Pair } from '../domain/market';
import { scales, shardOfPair } from '../domain/market';
import { feeRatePpm } from '../domain/decimal';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Scripts } from '../platform/redis/scripts';
import { hashOf, unwrap, type PlaceReply, type ScriptReply } from '../platform/redis/reply';
import { STP_FLAGS, type OrderType, type Side, type StpMode } from '../domain/order';
import { decodeSpotOrder, type SpotOrderRecord } from './spot-order-record';
import { GroupCommit } from '../platform/group-commit';
import { inKeyedRequest, newOperation } from '../platform/redis/operation';


/** A spot order in engine units: prices in ticks, amounts in lots, money in minor units (strings). */
export interface PlaceSpotInput {
  userId: string;
  pair: Pair;
  side: Side;
  type: OrderType;
  priceTicks?: string;
  amountLots?: string;
  quoteBudget?: string;
  postOnly: boolean;
  stp: StpMode;
  clientOrderId?: string | null;
  timestamp: number;
}

export type PlaceResult = PlaceReply<SpotOrderRecord>;

/** Orders of one market that one script call places at most (group commit, docs/performance.md). */
export const MAX_PLACE_BATCH = 64;

/** How many orders each placeSpotOrders call carried: how much the group commit is batching. */
export const placeBatchOrders = new Histogram({
  name: 'spot_place_batch_orders',
  help: 'Spot orders per placeSpotOrders script call (group commit)',
  buckets: [1, 2, 4, 8, 16, 32, 64],
});

/** Typed calls into the spot Lua scripts: argument builders in KEYS/ARGV order, reply decoders. */
export class SpotEngine {
  private readonly commit: GroupCommit<PlaceSpotInput, ScriptReply>;

  /** Each market's scripts run on its engine shard, under that shard's keys (`shards.keysOf(pair)`). */
  constructor(
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
    private readonly streamMaxLen: number,
  ) {
    // a batch is one operation of its own, whoever's request happened to start it
    this.commit = new GroupCommit((orders) => this.placeBatch(orders, true), MAX_PLACE_BATCH);
  }

  /** `fresh`: under an operation of its own (a group commit's batch), else the call's (runOnceFor). */
  private placeBatch(orders: PlaceSpotInput[], fresh: boolean): Promise<ScriptReply[]> {
    placeBatchOrders.observe(orders.length);
    const [keys, args] = this.placeArgs(orders);
    return fresh
      ? this.scripts.runOnce<ScriptReply[]>('placeSpotOrders', keys, args, newOperation(this.shards.keysOf(orders[0].pair)))
      : this.scripts.runOnceFor<ScriptReply[]>('placeSpotOrders', keys, args, this.shards.keysOf(orders[0].pair));
  }

  /** Per-pair KEYS[1..12] of every spot script, computed once: pairs never change after creation. */
  private readonly pairKeys = new Map<string, readonly string[]>();

  /**
   * KEYS[1..12] of the spot scripts: counters, book, levels, book sequence, events, last price, fees,
   * in the order lua/includes/spot/spotMarketKeys.lua reads them.
   */
  marketKeys(code: string, shard = 0): readonly string[] {
    let keys = this.pairKeys.get(code);
    if (!keys) {
      const k = this.shards.keys(shard);
      keys = Object.freeze([
        k.orderIds(), k.tradeIds(),
        k.book('spot', code, 'bids'), k.book('spot', code, 'asks'),
        k.levels('spot', code, 'bids'), k.levels('spot', code, 'asks'),
        k.levelQty('spot', code, 'bids'), k.levelQty('spot', code, 'asks'),
        k.bookSeq('spot', code), k.events('spot', code), k.lastPrice('spot', code), k.feesCollected(),
      ]);
      this.pairKeys.set(code, keys);
    }
    return keys;
  }

  /** Per-pair leading KEYS and ARGV of placeSpotOrders, computed once. */
  private readonly pairParts = new Map<string, { keys: string[]; args: (string | number)[] }>();

  private partsOfPair(pair: Pair): { keys: string[]; args: (string | number)[] } {
    let parts = this.pairParts.get(pair.code);
    if (!parts) {
      const k = this.shards.keysOf(pair);
      const code = pair.code;
      const { quoteScale, baseScale } = scales(pair);
      parts = {
        // KEYS[13..15]: the market's trade history, which the batch's trades are written to
        keys: [...this.marketKeys(code, shardOfPair(pair)), k.tradeHistory('spot', code), k.tradeTimes('spot', code), k.tradeHistoryRetention()],
        args: [
          k.engine, code, pair.baseCurrencyCode, pair.quoteCurrencyCode, quoteScale, baseScale,
          feeRatePpm(pair.makerFee), feeRatePpm(pair.takerFee), this.streamMaxLen,
        ],
      };
      this.pairParts.set(code, parts);
    }
    return parts;
  }

  /** KEYS and ARGV of placeSpotOrders for orders of one pair, in lua/spot/placeSpotOrders-15+5n.lua's order. */
  placeArgs(orders: PlaceSpotInput[]): [string[], (string | number)[]] {
    const pair = this.partsOfPair(orders[0].pair);
    const keys = pair.keys.slice();
    const args = pair.args.slice();
    const k = this.shards.keysOf(orders[0].pair);
    for (const o of orders) {
      if (o.pair.code !== orders[0].pair.code) throw new Error('one placeSpotOrders call takes orders of one pair');
      keys.push(
        k.userOrders(o.userId, 'spot'), k.userOpenOrders(o.userId, 'spot', o.pair.code),
        k.clientOrderIds(o.userId), k.walletAvailable(o.userId), k.walletReserved(o.userId),
      );
      args.push(
        o.userId, o.side, o.type, o.priceTicks ?? '', o.amountLots ?? '', o.quoteBudget ?? '',
        o.postOnly ? '1' : '0', STP_FLAGS[o.stp], o.clientOrderId ?? '', o.timestamp,
      );
    }
    return [keys, args];
  }

  /**
   * Places one order; orders arriving together on one market share a script call. An order of a
   * keyed request (Idempotency-Key) without a clientOrderId is placed alone, under the operation
   * derived from the key, so a retry finds it; with a clientOrderId its registry entry is the record.
   */
  async place(o: PlaceSpotInput): Promise<PlaceResult> {
    const alone = !o.clientOrderId && inKeyedRequest();
    const reply = alone ? (await this.placeBatch([o], false))[0] : await this.commit.submit(o.pair.code, o);
    return decodeSpotPlace(reply, o);
  }

  /**
   * Adds one placeSpotOrders call for `orders` (one pair) to a pipeline, in the exactly-once form
   * `place` sends; its reply is one per order.
   */
  queuePlace(pipeline: ChainableCommander, orders: PlaceSpotInput[]): void {
    const [keys, args] = this.placeArgs(orders);
    this.scripts.queueOnce(pipeline, 'placeSpotOrders', keys, args, newOperation(this.shards.keysOf(orders[0].pair)));
  }

  /** KEYS[1..16] of both cancel scripts: the market's, its pair hash, the user's open orders on it and wallet. */
  private cancelKeys(pair: Pair, userId: string): string[] {
    const k = this.shards.keysOf(pair);
    return [
      ...this.marketKeys(pair.code, shardOfPair(pair)), k.pair('spot', pair.code),
      k.userOpenOrders(userId, 'spot', pair.code), k.walletAvailable(userId), k.walletReserved(userId),
    ];
  }

  /** `orderId`: the caller's order on `pair` as read before (its pair, which never changes, names the keys). */
  async cancel(userId: string, pair: Pair, orderId: string, timestamp: number): Promise<SpotOrderRecord> {
    const k = this.shards.keysOf(pair);
    const reply = unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'cancelSpotOrder',
        [...this.cancelKeys(pair, userId), k.order(orderId)],
        [k.engine, userId, orderId, timestamp, this.streamMaxLen, pair.code],
        k,
      ),
    );
    return storedOrder(reply);
  }

  async cancelAll(userId: string, pair: Pair, timestamp: number): Promise<string[]> {
    const k = this.shards.keysOf(pair);
    const reply = unwrap(
      await this.scripts.runOnceFor<ScriptReply>(
        'cancelSpotOrders',
        this.cancelKeys(pair, userId),
        [k.engine, userId, pair.code, timestamp, this.streamMaxLen],
        k,
      ),
    );
    return reply[1] as string[];
  }
}

/**
 * A placement reply carries only what matching decided; the rest of the order is what was sent, so
 * the hash is rebuilt here exactly as the script stored it (a repeat answers the stored hash).
 */
export function decodeSpotPlace(reply: ScriptReply, o: PlaceSpotInput): PlaceResult {
  const r = unwrap(reply);
  if (r[0] === 'DUP') return { duplicate: true, order: storedOrder(r) };
  const [, id, status, filled, filledQuote, fee, rsv] = r as string[];
  const ts = String(o.timestamp);
  const order: SpotOrderRecord = {
    id, kind: 'spot', user: o.userId, pair: o.pair.code, side: o.side, type: o.type, filled, filledQuote, fee, rsv,
    status, postOnly: o.postOnly ? '1' : '0', stp: String(STP_FLAGS[o.stp]), cts: ts, uts: ts,
    // a placed order's first version (lua/includes/spot/spotOrder.lua)
    v: '1',
  };
  if (o.priceTicks) order.price = o.priceTicks;
  if (o.amountLots) order.amount = o.amountLots;
  if (o.quoteBudget) order.quoteAmount = o.quoteBudget;
  if (o.clientOrderId) order.clid = o.clientOrderId;
  return { duplicate: false, order };
}

/** `{tag, id, raw hash}`: a spot order as the script read it back. */
function storedOrder(r: unknown[]): SpotOrderRecord {
  const order = decodeSpotOrder(String(r[1]), hashOf(r[2]));
  if (!order) throw new Error(`spot script answered no spot order for id ${String(r[1])}`);
  return order;
}
