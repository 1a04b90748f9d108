import type { AppConfig } from '../platform/config/env';
import { createLogger, type Logger } from '../platform/config/logger';
import { BookReader } from '../market-data/book-reader';
import { MarketStore } from '../markets/market-store';
import { SpotEngine } from '../spot/spot-engine';
import { createRedis, type RedisClient } from '../platform/redis/connection';
import { Keys } from '../platform/redis/keys';
import { Scripts } from '../platform/redis/scripts';
import { createAggregatorFeeds, type AggregatorFeeds } from '../feeds/aggregator-feeds';
import { CandleService } from '../market-data/candle.service';
import { createCopyServices, type CopyServices } from '../copy/copy-services';
import { createFuturesServices, type FuturesServices } from '../futures/futures-services';
import { MarketDataService } from '../market-data/market-data.service';
import { MarketService } from '../markets/market.service';
import { SpotOrderService } from '../spot/spot-order.service';
import { WalletService } from '../wallet/wallet.service';

/** Everything a role needs, built once: the composition root. No role keeps state of its own. */
export interface AppContext extends FuturesServices, CopyServices {
  config: AppConfig;
  log: Logger;
  redis: RedisClient;
  keys: Keys;
  scripts: Scripts;
  marketStore: MarketStore;
  books: BookReader;
  spotEngine: SpotEngine;
  markets: MarketService;
  marketData: MarketDataService;
  candles: CandleService;
  wallets: WalletService;
  spotOrders: SpotOrderService;
  aggregators: AggregatorFeeds;
  close(): Promise<void>;
}

export async function createContext(config: AppConfig, log: Logger = createLogger(config.logLevel)): Promise<AppContext> {
  const redis = createRedis({ url: config.redisUrl, cluster: config.redisCluster, name: 'engine' });
  const keys = new Keys(config.keyPrefix);
  const scripts = new Scripts(redis);
  await scripts.preload();
  const marketStore = new MarketStore(redis, keys, scripts);
  const books = new BookReader(keys, scripts);
  const spotEngine = new SpotEngine(keys, scripts, config.streamMaxLen);
  const futures = createFuturesServices({ config, log, redis, keys, scripts, marketStore, books });
  return {
    config,
    log,
    redis,
    keys,
    scripts,
    marketStore,
    books,
    spotEngine,
    markets: new MarketService(marketStore),
    marketData: new MarketDataService(redis, keys, marketStore, books),
    candles: new CandleService(redis, keys, scripts, marketStore),
    wallets: new WalletService(redis, keys, scripts, marketStore),
    spotOrders: new SpotOrderService(redis, keys, marketStore, spotEngine),
    aggregators: createAggregatorFeeds({ config, redis, keys, marketStore, books }),
    ...futures,
    ...createCopyServices({ log, redis, keys, scripts, marketStore, futures }),
    async close() {
      await redis.quit().catch(() => undefined);
    },
  };
}
