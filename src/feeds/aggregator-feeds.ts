import type { AppConfig } from '../platform/config/env';
import type { BookReader } from '../market-data/book-reader';
import type { MarketStore } from '../markets/market-store';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import { AggregatorAFeed } from './aggregator-a.feed';
import { AggregatorBFeed } from './aggregator-b.feed';
import { FuturesContractStats } from '../futures/futures-contract-stats';
import { FuturesContractsFeed } from './futures-contracts.feed';
import { FuturesPriceService } from '../futures/futures-price.service';
import { MarketDataService } from '../market-data/market-data.service';
import { MarketTickerService } from '../market-data/market-ticker.service';

/** The market-data feeds of SPEC 4.6, over one shared ticker computation. */
export interface AggregatorFeeds {
  tickers: MarketTickerService;
  a: AggregatorAFeed;
  b: AggregatorBFeed;
  futures: FuturesContractsFeed;
}

export function createAggregatorFeeds(deps: {
  config: AppConfig;
  redis: RedisClient;
  keys: Keys;
  marketStore: MarketStore;
  books: BookReader;
}): AggregatorFeeds {
  const { config, redis, keys, marketStore, books } = deps;
  const marketData = new MarketDataService(redis, keys, marketStore, books);
  const tickers = new MarketTickerService(redis, keys, marketStore, books);
  const prices = new FuturesPriceService(redis, keys, marketStore, config.fundingIntervalSeconds);
  return {
    tickers,
    a: new AggregatorAFeed(marketStore, marketData, tickers),
    b: new AggregatorBFeed(marketStore, marketData, tickers),
    futures: new FuturesContractsFeed(marketStore, marketData, tickers, new FuturesContractStats(redis, keys, prices)),
  };
}
