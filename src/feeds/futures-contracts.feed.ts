import type BigNumber from 'bignumber.js';
import { unifiedCryptoassetId } from '../domain/unified-cryptoasset-id';
import type { MarketStore } from '../markets';
import type { FuturesContractStats } from '../futures';
import type { BookLevelDto, MarketDataService } from '../market-data';
import { depthPerSide, type MarketTickerService } from '../market-data';

const num = (v: BigNumber | null): number => (v ? v.toNumber() : 0);

/** SPEC 2.16, field for field. */
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

/** SPEC 2.17 */
export interface ContractBook {
  ticker_id: string;
  bids: BookLevelDto[];
  asks: BookLevelDto[];
}

/**
 * The futures part of both aggregators (SPEC 4.6 gives them one shape): linear perpetuals, so
 * product_type Perpetual, contract_type Vanilla, no end. Decisions in docs/aggregator-feeds.md.
 */
export class FuturesContractsFeed {
  constructor(
    private readonly markets: MarketStore,
    private readonly marketData: MarketDataService,
    private readonly tickers: MarketTickerService,
    private readonly stats: FuturesContractStats,
  ) {}

  async contracts(now = Date.now()): Promise<Record<string, ContractRecord[]>> {
    const pairs = await this.markets.listPairs('futures');
    const out: Record<string, ContractRecord[]> = {};
    await Promise.all(
      pairs.map(async (pair) => {
        const [t, s] = await Promise.all([this.tickers.ticker('futures', pair, now), this.stats.stats(pair, now)]);
        out[pair.code] = [
          {
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
            open_interest: s.openInterest.toNumber(),
            index_price: num(s.index),
            // SPEC types it a number: the quote currency's Unified Cryptoasset ID, 0 where it has none.
            index_currency: unifiedCryptoassetId(pair.quoteCurrencyCode) ?? 0,
            start_timestamp: null,
            end_timestamp: null,
            funding_rate: s.fundingRate,
            next_funding_rate: s.nextFundingRate,
            next_funding_rate_timestamp: s.nextFundingAt,
            contract_type: 'Vanilla',
            contract_price: num(t.last ? t.last.times(pair.contractValue ?? 1) : null),
            contract_price_currency: pair.quoteCurrencyCode,
          },
        ];
      }),
    );
    return out;
  }

  async orderbook(tickerId: string, depth: number): Promise<ContractBook> {
    const b = await this.marketData.orderBook('futures', tickerId, depthPerSide(depth));
    return { ticker_id: b.currencyPairCode, bids: b.bids, asks: b.asks };
  }
}
