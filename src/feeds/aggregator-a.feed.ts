import type BigNumber from 'bignumber.js';
import { decimal } from '../domain/decimal';
import type { MarketStore } from '../markets';
import type { BookLevelDto, MarketDataService } from '../market-data';
import { depthPerSide, type MarketTicker, type MarketTickerService, type TradeReader } from '../market-data';

/** CoinGecko carries decimals as strings; a missing value (no trade, empty book side) reads "0". */
const str = (v: BigNumber | null): string => (v ? v.toFixed() : '0');
const level = (l: BookLevelDto): [string, string] => [decimal(l.price).toFixed(), decimal(l.quantity).toFixed()];

export interface AggregatorAPair {
  ticker_id: string;
  base: string;
  target: string;
  pool_id: string;
}

export interface AggregatorATicker {
  ticker_id: string;
  base_currency: string;
  target_currency: string;
  pool_id: string;
  last_price: string;
  base_volume: string;
  target_volume: string;
  bid: string;
  ask: string;
  high: string;
  low: string;
}

export interface AggregatorABook {
  ticker_id: string;
  timestamp: number;
  bids: [string, string][];
  asks: [string, string][];
}

export interface AggregatorATrade {
  trade_id: number;
  price: string;
  base_volume: string;
  target_volume: string;
  trade_timestamp: number;
  type: 'buy' | 'sell';
  /** Only when the request named no ticker_id and trades of every pair come together. */
  ticker_id?: string;
}

export interface HistoricalTradesQuery {
  ticker_id?: string;
  type?: 'buy' | 'sell';
  limit: number;
  start_time?: number;
  end_time?: number;
  /** our paging extension: only trades with a smaller id (the `Link: rel="next"` of the page before) */
  before_id?: number;
}

/** `limit=0` asks for the whole retained history: it comes in pages of this many, linked by `before_id`. */
export const HISTORY_PAGE = 1000;

export interface HistoricalTradesPage {
  body: { buy: AggregatorATrade[]; sell: AggregatorATrade[] };
  /** `before_id` of the next page, null on the last */
  nextBeforeId: number | null;
}

/** Spot feed of aggregator A, the CoinGecko exchange API standard (docs/aggregator-feeds.md). */
export class AggregatorAFeed {
  constructor(
    private readonly markets: MarketStore,
    private readonly marketData: MarketDataService,
    private readonly tickers: MarketTickerService,
    private readonly trades: TradeReader,
  ) {}

  async pairs(): Promise<AggregatorAPair[]> {
    const pairs = await this.markets.listPairs('spot');
    return pairs.map((p) => ({ ticker_id: p.code, base: p.baseCurrencyCode, target: p.quoteCurrencyCode, pool_id: String(p.id) }));
  }

  async tickerList(): Promise<AggregatorATicker[]> {
    return (await this.tickers.tickers('spot')).map(aTicker);
  }

  /** One pair's book, or every spot pair's when `tickerId` is omitted. */
  async orderbook(tickerId: string | undefined, depth: number): Promise<AggregatorABook | AggregatorABook[]> {
    if (tickerId !== undefined) return this.book(tickerId, depth);
    const pairs = await this.markets.listPairs('spot');
    return Promise.all(pairs.map((p) => this.book(p.code, depth)));
  }

  /**
   * Newest first within each array, from the trade history; `limit` counts both arrays together.
   * `limit` 0 is the whole retained history, HISTORY_PAGE trades a page, the next from nextBeforeId.
   */
  async historicalTrades(q: HistoricalTradesQuery): Promise<HistoricalTradesPage> {
    const pairs = q.ticker_id ? [await this.marketData.pairOr404('spot', q.ticker_id)] : await this.markets.listPairs('spot');
    const page = await this.trades.page('spot', pairs, {
      from: q.start_time,
      to: q.end_time,
      side: q.type,
      limit: q.limit > 0 ? q.limit : HISTORY_PAGE,
      beforeId: q.before_id,
    });
    const body = { buy: [] as AggregatorATrade[], sell: [] as AggregatorATrade[] };
    for (const { pair, t } of page.trades) {
      body[t.side].push({
        trade_id: t.id,
        price: t.price,
        base_volume: t.amount,
        target_volume: t.quote,
        trade_timestamp: t.ts,
        type: t.side,
        ...(q.ticker_id ? {} : { ticker_id: pair.code }),
      });
    }
    return { body, nextBeforeId: page.nextBeforeId };
  }

  private async book(code: string, depth: number): Promise<AggregatorABook> {
    const timestamp = Date.now();
    const b = await this.marketData.orderBook('spot', code, depthPerSide(depth));
    return { ticker_id: b.currencyPairCode, timestamp, bids: b.bids.map(level), asks: b.asks.map(level) };
  }
}

function aTicker(t: MarketTicker): AggregatorATicker {
  return {
    ticker_id: t.pair.code,
    base_currency: t.pair.baseCurrencyCode,
    target_currency: t.pair.quoteCurrencyCode,
    pool_id: String(t.pair.id),
    last_price: str(t.last),
    base_volume: t.baseVolume.toFixed(),
    target_volume: t.quoteVolume.toFixed(),
    bid: str(t.bid),
    ask: str(t.ask),
    high: str(t.high),
    low: str(t.low),
  };
}
