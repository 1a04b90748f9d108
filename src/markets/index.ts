import type { PlatformDeps } from '../platform/deps';
import { MarketService } from './market.service';
import { MarketStore } from './market-store';

export { MarketStore } from './market-store';
export { MarketService, spotPairDto, type PairRequest, type SpotPairDto } from './market.service';
export { requirePair, unknownPair } from './require-pair';
export { seedMarkets } from './market-seeder';
export { PairAnnouncements, parseAnnouncement, type PairAnnouncement } from './pair-announcements';
export { marketsRoutes } from './http/markets.routes';
export { adminMarketsRoutes } from './http/admin-markets.routes';

/** Currencies and pairs: the reference data every other feature reads. */
export interface Markets {
  store: MarketStore;
  service: MarketService;
}

export function createMarkets(deps: Pick<PlatformDeps, 'redis' | 'keys' | 'scripts'>): Markets {
  const store = new MarketStore(deps.redis, deps.keys, deps.scripts);
  return { store, service: new MarketService(store) };
}
