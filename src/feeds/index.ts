import { FuturesContractStats, FuturesKeyring, type FuturesPriceService } from '../futures';
import type { MarketData } from '../market-data';
import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { AggregatorAFeed } from './aggregator-a.feed';
import { AggregatorBFeed } from './aggregator-b.feed';
import { FuturesContractsFeed } from './futures-contracts.feed';
import { UsdRates } from './usd-rates';

export { aggregatorRoutes } from './http/aggregator.routes';

/** The market-data feeds of docs/aggregator-feeds.md (A: CoinGecko's standard, B: CoinMarketCap's), over one ticker computation. */
export interface AggregatorFeeds {
  a: AggregatorAFeed;
  b: AggregatorBFeed;
  futures: FuturesContractsFeed;
}

export function createFeeds(
  deps: Pick<PlatformDeps, 'redis' | 'keys'> & {
    markets: MarketStore;
    marketData: Pick<MarketData, 'service' | 'tickers' | 'trades'>;
    prices: FuturesPriceService;
  },
): AggregatorFeeds {
  const { redis, keys, markets, marketData, prices } = deps;
  const { service, tickers, trades } = marketData;
  return {
    a: new AggregatorAFeed(markets, service, tickers, trades),
    b: new AggregatorBFeed(markets, service, tickers, trades),
    futures: new FuturesContractsFeed(
      markets,
      service,
      tickers,
      new FuturesContractStats(redis, new FuturesKeyring(markets), prices),
      new UsdRates(markets, redis, keys),
    ),
  };
}
