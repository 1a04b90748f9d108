import { fromMinor, shiftDecimal } from '../domain/decimal';
import { requirePair } from '../markets';
import type { Pair } from '../domain/market';
import type { BookReader } from './book-reader';
import type { MarketStore } from '../markets';
import type { MarketKind } from '../platform/redis/keys';
import type { TradeHistory } from './trade-history';

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

/** Public market data read straight from engine state: the book, and the most recent trades from the trade history. */
export class MarketDataService {
  constructor(
    private readonly markets: MarketStore,
    private readonly books: BookReader,
    private readonly history: TradeHistory,
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

  /** The most recent trades, newest first, from the trade history; `beforeId` pages on. */
  async recentTrades(code: string, limit: number, beforeId?: number): Promise<SpotTradeDto[]> {
    const pair = await this.pairOr404('spot', code);
    const range = { min: 0, max: beforeId === undefined ? Number.MAX_SAFE_INTEGER : beforeId - 1 };
    const trades = await this.history.trades([this.history.marketSource('spot', code, range)], 0, limit);
    return trades.map((t) => ({
      id: t.id,
      timestamp: new Date(t.ts).toISOString(),
      price: Number(shiftDecimal(t.p, pair.digitsPrice)),
      amount: Number(shiftDecimal(t.q, pair.digitsAmount)),
      currencyPairCode: code,
      side: t.side,
    }));
  }
}
