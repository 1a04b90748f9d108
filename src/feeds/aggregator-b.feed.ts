import type BigNumber from 'bignumber.js';
import { unifiedCryptoassetId } from '../domain/unified-cryptoasset-id';
import type { MarketStore } from '../markets';
import type { BookLevelDto, MarketDataService } from '../market-data';
import { TICKER_WINDOW_MS, depthPerSide, type MarketTickerService, type TradeReader } from '../market-data';

/** CoinMarketCap types its figures as decimals: JSON numbers here; a missing value reads 0. */
const num = (v: BigNumber | null): number => (v ? v.toNumber() : 0);
const pairOf = (l: BookLevelDto): [number, number] => [l.price, l.quantity];

export const AGGREGATOR_B_ROOT = '/api/marketdata/getaggregatorb';

export interface AggregatorBSummary {
  trading_pairs: string;
  base_currency: string;
  quote_currency: string;
  last_price: number;
  lowest_ask: number;
  highest_bid: number;
  base_volume: number;
  quote_volume: number;
  price_change_percent_24h: number;
  highest_price_24h: number;
  lowest_price_24h: number;
}

export interface AggregatorBAsset {
  name: string;
  unified_cryptoasset_id?: number;
  can_withdraw: boolean;
  can_deposit: boolean;
  min_withdraw: number;
  max_withdraw: number;
  maker_fee: number;
  taker_fee: number;
}

export interface AggregatorBTicker {
  base_id?: number;
  quote_id?: number;
  last_price: number;
  base_volume: number;
  quote_volume: number;
  isFrozen: 0 | 1;
}

export interface AggregatorBBook {
  timestamp: number;
  bids: [number, number][];
  asks: [number, number][];
}

export interface AggregatorBTrade {
  trade_id: number;
  price: number;
  base_volume: number;
  quote_volume: number;
  timestamp: number;
  type: 'buy' | 'sell';
}

/** Trades a page of B's trades (the last 24 h can hold millions). */
export const TRADES_PAGE = 1000;

/** Spot feed of aggregator B, the CoinMarketCap exchange API specification (docs/aggregator-feeds.md). */
export class AggregatorBFeed {
  constructor(
    private readonly markets: MarketStore,
    private readonly marketData: MarketDataService,
    private readonly tickers: MarketTickerService,
    private readonly tradeReader: TradeReader,
  ) {}

  /** The feed's root: where each endpoint is and which pairs they answer for. */
  async index(): Promise<{ endpoints: Record<string, string>; trading_pairs: string[] }> {
    const pairs = await this.markets.listPairs('spot');
    return {
      endpoints: {
        summary: `${AGGREGATOR_B_ROOT}/summary`,
        asset: `${AGGREGATOR_B_ROOT}/asset`,
        ticker: `${AGGREGATOR_B_ROOT}/ticker`,
        orderbook: `${AGGREGATOR_B_ROOT}/orderbook/{market_pair}`,
        trades: `${AGGREGATOR_B_ROOT}/trades/{market_pair}`,
      },
      trading_pairs: pairs.map((p) => p.code),
    };
  }

  async summary(): Promise<AggregatorBSummary[]> {
    return (await this.tickers.tickers('spot')).map((t) => ({
      trading_pairs: t.pair.code,
      base_currency: t.pair.baseCurrencyCode,
      quote_currency: t.pair.quoteCurrencyCode,
      last_price: num(t.last),
      lowest_ask: num(t.ask),
      highest_bid: num(t.bid),
      base_volume: t.baseVolume.toNumber(),
      quote_volume: t.quoteVolume.toNumber(),
      price_change_percent_24h: num(t.changePercent),
      highest_price_24h: num(t.high),
      lowest_price_24h: num(t.low),
    }));
  }

  /**
   * Every listed currency. Deposits are credited by operators and there is no withdrawal path, so
   * can_deposit is true, can_withdraw false and both withdrawal bounds 0. Fees are per pair here:
   * an asset reports the lowest maker and taker rates of the spot pairs it trades in (0 for none).
   */
  async assets(): Promise<Record<string, AggregatorBAsset>> {
    const [currencies, pairs] = await Promise.all([this.markets.listCurrencies(), this.markets.listPairs('spot')]);
    const out: Record<string, AggregatorBAsset> = {};
    for (const c of currencies) {
      const own = pairs.filter((p) => p.baseCurrencyCode === c.code || p.quoteCurrencyCode === c.code);
      const lowest = (rates: number[]) => (rates.length ? Math.min(...rates) : 0);
      const ucid = unifiedCryptoassetId(c.code);
      out[c.code] = {
        name: c.name,
        ...(ucid !== undefined ? { unified_cryptoasset_id: ucid } : {}),
        can_withdraw: false,
        can_deposit: true,
        min_withdraw: 0,
        max_withdraw: 0,
        maker_fee: lowest(own.map((p) => p.makerFee)),
        taker_fee: lowest(own.map((p) => p.takerFee)),
      };
    }
    return out;
  }

  async ticker(): Promise<Record<string, AggregatorBTicker>> {
    const out: Record<string, AggregatorBTicker> = {};
    for (const t of await this.tickers.tickers('spot')) {
      const baseId = unifiedCryptoassetId(t.pair.baseCurrencyCode);
      const quoteId = unifiedCryptoassetId(t.pair.quoteCurrencyCode);
      out[t.pair.code] = {
        ...(baseId !== undefined ? { base_id: baseId } : {}),
        ...(quoteId !== undefined ? { quote_id: quoteId } : {}),
        last_price: num(t.last),
        base_volume: t.baseVolume.toNumber(),
        quote_volume: t.quoteVolume.toNumber(),
        isFrozen: t.pair.isActive ? 0 : 1,
      };
    }
    return out;
  }

  /** level 1: best bid and ask only; 2 and 3: aggregated price levels (the book keeps no finer public view). */
  async orderbook(marketPair: string, depth: number, level: number): Promise<AggregatorBBook> {
    const timestamp = Date.now();
    const b = await this.marketData.orderBook('spot', marketPair, level === 1 ? 1 : depthPerSide(depth));
    return { timestamp, bids: b.bids.map(pairOf), asks: b.asks.map(pairOf) };
  }

  /**
   * Every trade of the last 24 hours, newest first, from the trade history: TRADES_PAGE a page, the
   * next from nextBeforeId (null on the last).
   */
  async trades(marketPair: string, beforeId?: number, now = Date.now()): Promise<{ body: AggregatorBTrade[]; nextBeforeId: number | null }> {
    const pair = await this.marketData.pairOr404('spot', marketPair);
    const page = await this.tradeReader.page('spot', [pair], { from: now - TICKER_WINDOW_MS, limit: TRADES_PAGE, beforeId });
    const body = page.trades.map(({ t }) => ({
      trade_id: t.id,
      price: Number(t.price),
      base_volume: Number(t.amount),
      quote_volume: Number(t.quote),
      timestamp: t.ts,
      type: t.side,
    }));
    return { body, nextBeforeId: page.nextBeforeId };
  }
}
