import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { SpotEngine } from './spot-engine';
import { SpotOrderService, type SpotFunding } from './spot-order.service';
import { SpotUserTrades } from './spot-user-trades';
import { TradeHistory } from '../market-data';

export { SpotEngine, placeBatchOrders } from './spot-engine';
export { SpotOrderService, type SpotFunding } from './spot-order.service';
export { spotOrderRoutes } from './http/spot-order.routes';
export { decodeSpotOrder, withSpotState, type SpotOrderRecord } from './spot-order-record';

/** The spot market: its engine wrapper (group commit), order use cases and the caller's fills. */
export interface Spot {
  engine: SpotEngine;
  orders: SpotOrderService;
  userTrades: SpotUserTrades;
}

export function createSpot(
  deps: Pick<PlatformDeps, 'config' | 'redis' | 'shards' | 'scripts'> & { markets: MarketStore; funding: SpotFunding },
): Spot {
  const { config, redis, shards, scripts, markets } = deps;
  const engine = new SpotEngine(shards, scripts, config.streamMaxLen);
  return {
    engine,
    orders: new SpotOrderService(redis, shards, scripts, markets, engine, deps.funding),
    userTrades: new SpotUserTrades(new TradeHistory(redis, markets, scripts), markets),
  };
}
