import type { MarketDataService } from '../market-data';
import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { FuturesAccountReader } from './futures-account-reader';
import { FuturesAccountStats } from './futures-account-stats';
import { FuturesAccountService, type FuturesFunding } from './futures-account.service';
import { FuturesEngine } from './futures-engine';
import { FuturesMarketService } from './futures-market.service';
import { FuturesOrderService } from './futures-order.service';
import { FuturesPriceService } from './prices/futures-price.service';
import { FuturesRiskService } from './futures-risk.service';
import { FuturesPriceEngine } from './prices/futures-price-engine';
import { FuturesPremiumSampler } from './prices/futures-premium-sampler';
import { ImpactBook } from './prices/impact-book';
import { BookReader, TradeHistory } from '../market-data';
import { FuturesKeyring } from './futures-keyring';

export { FuturesAccountReader, type AccountOrder, type AccountState } from './futures-account-reader';
export { FuturesAccountStats, type AccountTradingStats, type PairTotals, type RankBy } from './futures-account-stats';
export { FuturesAccountService, type FuturesAccountDto, type FuturesFunding } from './futures-account.service';
export { FuturesContractStats, type ContractStats } from './futures-contract-stats';
export { FuturesEngine } from './futures-engine';
export { FuturesKeyring } from './futures-keyring';
export { FuturesMarketService, type FuturesDealDto, type FuturesUserDealDto } from './futures-market.service';
export { futuresOrderDto, unrealizedMinor, type FuturesOrderDto } from './futures-order-dto';
export { decodeFuturesOrder, withFuturesState, type FuturesOrderRecord } from './futures-order-record';
export { FuturesOrderService, type CreateFuturesRequest, type CloseRequest, type CreateManyResult } from './futures-order.service';
export { FuturesPriceService } from './prices/futures-price.service';
export { FuturesRiskService } from './futures-risk.service';
export { startFuturesWorkers } from './workers/futures-workers';
export { futuresRoutes } from './http/futures.routes';
export { adminIndexPriceRoutes } from './http/admin-index-price.routes';
export { adminInsuranceFundRoutes } from './http/admin-insurance-fund.routes';
export { InsuranceFundReader, type InsuranceFundDto, type InsuranceFundPositionDto } from './insurance-fund';
export { InsuranceFunding } from './insurance-funding';
export { futuresOrderDtoSchema, futuresUserDealDtoSchema } from './http/futures-dto.schema';

/** The futures market: engine wrapper, prices, accounts, orders, public data and risk sweeps. */
export interface Futures {
  /** Where futures keys live: each market's on its shard, each account's registry at its owner's home. */
  keyring: FuturesKeyring;
  engine: FuturesEngine;
  prices: FuturesPriceService;
  /** Funding premium samples (every PREMIUM_SAMPLE_SECONDS, from the risk tick). */
  premium: FuturesPremiumSampler;
  accounts: FuturesAccountService;
  orders: FuturesOrderService;
  market: FuturesMarketService;
  risk: FuturesRiskService;
  /** Accounts read by account id: how copy trading sees futures state. */
  accountReader: FuturesAccountReader;
  /** Accounts' trading aggregates and rankings, kept by the engine scripts (copy trading's analytics). */
  accountStats: FuturesAccountStats;
}

export function createFutures(
  deps: Pick<PlatformDeps, 'config' | 'log' | 'redis' | 'keys' | 'scripts'> & {
    markets: MarketStore;
    marketData: MarketDataService;
    funding: FuturesFunding;
  },
): Futures {
  const { config, log, redis, keys, scripts, markets, marketData } = deps;
  const keyring = new FuturesKeyring(markets, (userId) => deps.funding.homes.of(userId));
  const engine = new FuturesEngine(keyring, scripts, config.streamMaxLen);
  const priceEngine = new FuturesPriceEngine(keyring, scripts, config.streamMaxLen);
  const books = new BookReader(markets, scripts);
  const impact = new ImpactBook(books);
  const prices = new FuturesPriceService(redis, keyring, markets, priceEngine, impact, config);
  const premium = new FuturesPremiumSampler(prices, priceEngine, impact, config.premiumSampleSeconds);
  return {
    keyring,
    engine,
    prices,
    accounts: new FuturesAccountService(redis, keyring, markets, engine, prices, deps.funding),
    orders: new FuturesOrderService(redis, keyring, markets, engine, prices, deps.funding),
    market: new FuturesMarketService(new TradeHistory(redis, markets, scripts), markets, marketData, prices, engine),
    premium,
    risk: new FuturesRiskService(engine, markets, prices, priceEngine, premium, log),
    accountReader: new FuturesAccountReader(redis, keyring, markets, prices),
    accountStats: new FuturesAccountStats(redis, keys, scripts, markets, keyring),
  };
}
