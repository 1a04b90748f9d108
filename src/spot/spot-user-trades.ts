import { fromMinor } from '../domain/decimal';
import type { Pair } from '../domain/market';
import { entryMs, parseEntry, type MarketEvent } from '../platform/market-event';
import type { MarketStore } from '../markets';
import { requirePair } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import { decodeSpotOrder } from './spot-order-record';

/** One fill of one of the caller's spot orders, from the caller's side. */
export interface SpotUserTradeDto {
  id: number;
  orderId: number;
  timestamp: string;
  price: number;
  amount: number;
  currencyPairCode: string;
  side: 'buy' | 'sell';
  takerOrMaker: 'taker' | 'maker';
  fee: number;
  feeCurrencyCode: string;
}

export interface SpotUserTradesQuery {
  limit: number;
  since?: Date;
}

/** Command times run a little apart from append times (docs/events.md); the scan allows for it. */
const CLOCK_SLACK_MS = 60_000;

/**
 * The caller's spot fills on one market, newest first, read from the market's event stream (the
 * window STREAM_MAXLEN keeps, as GET /api/trades). The scan stops at `limit` fills, at `since`, or
 * at the caller's first spot order: no fill of theirs can be older.
 */
export class SpotUserTrades {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
  ) {}

  async list(userId: string, pairCode: string, q: SpotUserTradesQuery): Promise<SpotUserTradeDto[]> {
    const pair = await requirePair(this.markets, 'spot', pairCode, 'path');
    const firstOrderMs = await this.firstOrderMs(userId);
    if (firstOrderMs === null) return [];
    const floor = Math.max(firstOrderMs, q.since?.getTime() ?? 0);
    const out: SpotUserTradeDto[] = [];
    let end = '+';
    for (;;) {
      const entries = await this.redis.xrevrange(this.keys.events('spot', pair.code), end, '-', 'COUNT', 500);
      if (entries.length === 0) return out;
      for (const [id, fields] of entries) {
        end = `(${id}`;
        if (entryMs(id) < floor - CLOCK_SLACK_MS) return out;
        const entry = parseEntry(id, fields);
        if (entry.ts < floor) continue;
        for (const t of entry.events.filter((e) => e.e === 'trade').reverse()) {
          // a self-trade is two fills of the caller's: the taker's first, as it happened last
          if (t.tu === userId) out.push(fill(t, pair, entry.ts, 'taker'));
          if (t.mu === userId) out.push(fill(t, pair, entry.ts, 'maker'));
          if (out.length >= q.limit) return out.slice(0, q.limit);
        }
      }
    }
  }

  /** Creation time of the caller's oldest spot order (order ids rise with time), null with none. */
  private async firstOrderMs(userId: string): Promise<number | null> {
    const [id] = await this.redis.zrange(this.keys.userOrders(userId, 'spot'), '0', '0');
    if (id === undefined) return null;
    const order = decodeSpotOrder(id, await this.redis.hgetall(this.keys.order(id)));
    return order ? Number(order.cts) : null;
  }
}

function fill(t: MarketEvent, pair: Pair, ts: number, role: 'taker' | 'maker'): SpotUserTradeDto {
  const takerSide = t.side as 'buy' | 'sell';
  const side = role === 'taker' ? takerSide : takerSide === 'buy' ? 'sell' : 'buy';
  // each side pays its fee in the currency it receives (docs/spot.md)
  const feeInBase = side === 'buy';
  return {
    id: Number(t.id),
    orderId: Number(role === 'taker' ? t.tk : t.mk),
    timestamp: new Date(ts).toISOString(),
    price: fromMinor(t.p, pair.digitsPrice),
    amount: fromMinor(t.q, pair.digitsAmount),
    currencyPairCode: pair.code,
    side,
    takerOrMaker: role,
    fee: fromMinor(role === 'taker' ? t.tf : t.mf, feeInBase ? pair.baseDecimals : pair.quoteDecimals),
    feeCurrencyCode: feeInBase ? pair.baseCurrencyCode : pair.quoteCurrencyCode,
  };
}
