import type { MarketStore } from '../../markets';
import type { PlatformDeps } from '../../platform/deps';
import type { FuturesRiskService } from '../futures-risk.service';

/**
 * What the futures processors need: the pairs to sweep and the risk service that sweeps them
 * (shaped so that the composition root's context is one).
 */
export type FuturesWorkerDeps = Pick<PlatformDeps, 'config' | 'keys' | 'log'> & {
  markets: { store: MarketStore };
  futures: { risk: FuturesRiskService };
};
