import type { AppConfig } from '../config/env';
import type { Logger } from '../config/logger';
import type { BookReader } from '../engine/book-reader';
import { FuturesEngine } from '../engine/futures-engine';
import type { MarketStore } from '../engine/market-store';
import type { RedisClient } from '../redis/connection';
import type { Keys } from '../redis/keys';
import type { Scripts } from '../redis/scripts';
import { FuturesAccountService } from './futures-account.service';
import { FuturesMarketService } from './futures-market.service';
import { FuturesOrderService } from './futures-order.service';
import { FuturesPriceService } from './futures-price.service';
import { FuturesRiskService } from './futures-risk.service';
import { MarketDataService } from './market-data.service';

/** The futures side of the composition root (src/context.ts). */
export interface FuturesServices {
  futuresEngine: FuturesEngine;
  futuresPrices: FuturesPriceService;
  futuresAccounts: FuturesAccountService;
  futuresOrders: FuturesOrderService;
  futuresMarket: FuturesMarketService;
  futuresRisk: FuturesRiskService;
}

export function createFuturesServices(deps: {
  config: AppConfig;
  log: Logger;
  redis: RedisClient;
  keys: Keys;
  scripts: Scripts;
  marketStore: MarketStore;
  books: BookReader;
}): FuturesServices {
  const { config, log, redis, keys, scripts, marketStore, books } = deps;
  const futuresEngine = new FuturesEngine(keys, scripts, config.streamMaxLen);
  const futuresPrices = new FuturesPriceService(redis, keys, marketStore, config.fundingIntervalSeconds);
  return {
    futuresEngine,
    futuresPrices,
    futuresAccounts: new FuturesAccountService(redis, keys, marketStore, futuresEngine, futuresPrices),
    futuresOrders: new FuturesOrderService(redis, keys, marketStore, futuresEngine, futuresPrices),
    futuresMarket: new FuturesMarketService(
      redis, keys, marketStore, new MarketDataService(redis, keys, marketStore, books), futuresPrices, futuresEngine,
    ),
    futuresRisk: new FuturesRiskService(futuresEngine, marketStore, futuresPrices, log),
  };
}
