import type BigNumber from 'bignumber.js';
import { unifiedCryptoassetId } from '../domain/unified-cryptoasset-id';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import type { ContractStats, FuturesContractStats } from '../futures';
import type { BookLevelDto, MarketDataService } from '../market-data';
import { depthPerSide, type MarketTicker, type MarketTickerService } from '../market-data';
import type { UsdRates } from './usd-rates';

const num = (v: BigNumber | null): number => (v ? v.toNumber() : 0);

/** OpenAPI `ContractRecordA`/`B`, field for field: what the contract records of both aggregators carry. */
export interface ContractRecord {
  ticker_id: string;
  base_currency: string;
  target_currency: string;
  last_price: number;
  base_volume: number;
  target_volume: number;
  bid: number;
  ask: number;
  high: number;
  low: number;
  product_type: string;
  open_interest: number;
  index_price: number;
  /** Extension: the mark price positions are valued and liquidated at (docs/futures.md). */
  mark_price: number;
  index_currency: number;
  start_timestamp: number | null;
  end_timestamp: number | null;
  funding_rate: number;
  next_funding_rate: number;
  next_funding_rate_timestamp: number;
  contract_type: string;
  contract_price: number;
  contract_price_currency: string;
}

/** Aggregator A (CoinGecko derivatives): OpenAPI `ContractRecordA`/`B` plus the standard's mandatory open_interest_usd and index_name. */
export interface ContractRecordA extends ContractRecord {
  open_interest_usd: number;
  index_name: string;
}

/**
 * Aggregator B (CoinMarketCap derivatives): OpenAPI `ContractRecordA`/`B` plus the standard's quote_currency and
 * quote_volume (mandatory), USD_volume, open_interest_usd, maker_fee and taker_fee (recommended);
 * open_interest counts contracts.
 */
export interface ContractRecordB extends ContractRecord {
  quote_currency: string;
  quote_volume: number;
  USD_volume: number;
  open_interest_usd: number;
  maker_fee: number;
  taker_fee: number;
}

/** OpenAPI `ContractBook`, plus the time the book was read (CoinMarketCap: mandatory; CoinGecko: recommended). */
export interface ContractBook {
  ticker_id: string;
  timestamp: number;
  bids: BookLevelDto[];
  asks: BookLevelDto[];
}

/** What one futures market's records are made of. */
interface ContractFigures {
  pair: Pair;
  ticker: MarketTicker;
  stats: ContractStats;
  /** US dollars per unit of the quote currency, null when unknown. */
  usdPerQuote: BigNumber | null;
}

/**
 * The futures part of both aggregators: linear perpetuals, so product_type Perpetual, contract_type
 * Vanilla, no end. Each aggregator gets OpenAPI `ContractRecordA`/`B` plus what its own standard asks for, in its units.
 * Decisions in docs/aggregator-feeds.md.
 */
export class FuturesContractsFeed {
  constructor(
    private readonly markets: MarketStore,
    private readonly marketData: MarketDataService,
    private readonly tickers: MarketTickerService,
    private readonly stats: FuturesContractStats,
    private readonly usd: UsdRates,
  ) {}

  async contractsA(now = Date.now()): Promise<Record<string, ContractRecordA[]>> {
    return this.byPair(now, (f) => ({
      ...specRecord(f, f.stats.openInterest),
      open_interest_usd: openInterestUsd(f),
      index_name: f.pair.code,
    }));
  }

  async contractsB(now = Date.now()): Promise<Record<string, ContractRecordB[]>> {
    return this.byPair(now, (f) => ({
      ...specRecord(f, f.stats.openContracts),
      quote_currency: f.pair.quoteCurrencyCode,
      quote_volume: f.ticker.quoteVolume.toNumber(),
      USD_volume: num(f.usdPerQuote && f.ticker.quoteVolume.times(f.usdPerQuote)),
      open_interest_usd: openInterestUsd(f),
      maker_fee: f.pair.makerFee,
      taker_fee: f.pair.takerFee,
    }));
  }

  async orderbook(tickerId: string, depth: number): Promise<ContractBook> {
    const timestamp = Date.now();
    const b = await this.marketData.orderBook('futures', tickerId, depthPerSide(depth));
    return { ticker_id: b.currencyPairCode, timestamp, bids: b.bids, asks: b.asks };
  }

  /** `{code: [record]}` for every futures pair, in pair id order. */
  private async byPair<R>(now: number, record: (f: ContractFigures) => R): Promise<Record<string, R[]>> {
    const pairs = await this.markets.listPairs('futures');
    const rates = await this.usd.rates(pairs.map((p) => p.quoteCurrencyCode));
    const figures = await Promise.all(
      pairs.map(async (pair): Promise<ContractFigures> => {
        const [ticker, stats] = await Promise.all([this.tickers.ticker('futures', pair, now), this.stats.stats(pair, now)]);
        return { pair, ticker, stats, usdPerQuote: rates.get(pair.quoteCurrencyCode) ?? null };
      }),
    );
    const out: Record<string, R[]> = {};
    for (const f of figures) out[f.pair.code] = [record(f)];
    return out;
  }
}

/** OpenAPI `ContractRecordA`/`B` of one market, with open interest in the unit the aggregator asks for. */
function specRecord({ pair, ticker: t, stats: s }: ContractFigures, openInterest: BigNumber): ContractRecord {
  return {
    ticker_id: pair.code,
    base_currency: pair.baseCurrencyCode,
    target_currency: pair.quoteCurrencyCode,
    last_price: num(t.last),
    base_volume: t.baseVolume.toNumber(),
    target_volume: t.quoteVolume.toNumber(),
    bid: num(t.bid),
    ask: num(t.ask),
    high: num(t.high),
    low: num(t.low),
    product_type: 'Perpetual',
    open_interest: openInterest.toNumber(),
    index_price: num(s.index),
    mark_price: num(s.mark),
    // the contract record types it a number: the quote currency's Unified Cryptoasset ID, 0 where it has none.
    index_currency: unifiedCryptoassetId(pair.quoteCurrencyCode) ?? 0,
    start_timestamp: null,
    end_timestamp: null,
    funding_rate: s.fundingRate,
    next_funding_rate: s.nextFundingRate,
    next_funding_rate_timestamp: s.nextFundingAt,
    contract_type: 'Vanilla',
    contract_price: num(t.last && t.last.times(pair.contractValue ?? 1)),
    contract_price_currency: pair.quoteCurrencyCode,
  };
}

/**
 * Open interest in US dollars: base units × the mark price (the last trade before any price is
 * marked) × dollars per quote unit; 0 while any of them is unknown.
 */
function openInterestUsd({ ticker, stats, usdPerQuote }: ContractFigures): number {
  const price = stats.mark ?? ticker.last;
  return num(price && usdPerQuote && stats.openInterest.times(price).times(usdPerQuote));
}
