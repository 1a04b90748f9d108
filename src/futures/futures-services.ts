import type { AppContext } from '../transport/context';
import { FuturesEngine } from './futures-engine';
import { FuturesAccountService } from './futures-account.service';
import { FuturesMarketService } from './futures-market.service';
import { FuturesOrderService } from './futures-order.service';
import { FuturesPriceService } from './futures-price.service';
import { FuturesRiskService } from './futures-risk.service';
import { MarketDataService } from '../market-data/market-data.service';

/** The futures side of the composition root (src/transport/context.ts). */
export interface FuturesServices {
  futuresEngine: FuturesEngine;
  futuresPrices: FuturesPriceService;
  futuresAccounts: FuturesAccountService;
  futuresOrders: FuturesOrderService;
  futuresMarket: FuturesMarketService;
  futuresRisk: FuturesRiskService;
}

/** The engine-level parts of the context the futures services are built from. */
export type EngineDeps = Pick<AppContext, 'config' | 'log' | 'redis' | 'keys' | 'scripts' | 'marketStore' | 'books'>;

export function createFuturesServices(deps: EngineDeps): FuturesServices {
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
