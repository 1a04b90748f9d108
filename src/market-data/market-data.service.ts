import { fromMinor } from '../domain/decimal';
import { requirePair } from '../markets';
import type { Pair } from '../domain/market';
import type { BookReader } from './book-reader';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import { fieldValue } from '../platform/market-event';
import type { Keys, MarketKind } from '../platform/redis/keys';

export interface BookLevelDto {
  price: number;
  quantity: number;
}

export interface OrderBookDto {
  currencyPairCode: string;
  seq: number;
  asks: BookLevelDto[];
  bids: BookLevelDto[];
}

export interface SpotTradeDto {
  id: number;
  timestamp: string;
  price: number;
  amount: number;
  currencyPairCode: string;
  side: 'buy' | 'sell';
}

/** Public market data read straight from engine state: the book and the most recent trades. */
export class MarketDataService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
    private readonly books: BookReader,
  ) {}

  pairOr404(kind: MarketKind, code: string): Promise<Pair> {
    return requirePair(this.markets, kind, code, 'path');
  }

  async orderBook(kind: MarketKind, code: string, depth: number): Promise<OrderBookDto> {
    const pair = await this.pairOr404(kind, code);
    const snap = await this.books.snapshot(kind, code, depth);
    const level = ([p, q]: [string, string]): BookLevelDto => ({
      price: fromMinor(p, pair.digitsPrice),
      quantity: fromMinor(q, pair.digitsAmount),
    });
    return { currencyPairCode: code, seq: snap.seq, asks: snap.asks.map(level), bids: snap.bids.map(level) };
  }

  /** Newest first, from the market's event stream (the window its MAXLEN keeps). */
  async recentTrades(code: string, limit: number): Promise<SpotTradeDto[]> {
    const pair = await this.pairOr404('spot', code);
    const out: SpotTradeDto[] = [];
    let end = '+';
    while (out.length < limit) {
      const entries = await this.redis.xrevrange(this.keys.events('spot', code), end, '-', 'COUNT', 500);
      if (entries.length === 0) break;
      for (const [id, fields] of entries) {
        const ev = fieldValue(fields, 'ev');
        const ts = Number(fieldValue(fields, 'ts'));
        if (!ev) continue;
        const trades = (JSON.parse(ev) as Record<string, string>[]).filter((e) => e.e === 'trade').reverse();
        for (const t of trades) {
          out.push({
            id: Number(t.id),
            timestamp: new Date(ts).toISOString(),
            price: fromMinor(t.p, pair.digitsPrice),
            amount: fromMinor(t.q, pair.digitsAmount),
            currencyPairCode: code,
            side: t.side as 'buy' | 'sell',
          });
          if (out.length >= limit) break;
        }
        end = `(${id}`;
      }
    }
    return out;
  }
}
