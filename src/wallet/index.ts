import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { WalletService } from './wallet.service';

export { WalletService, type BalanceDto } from './wallet.service';
export { walletRoutes } from './http/wallet.routes';
export { adminDepositRoutes } from './http/admin-deposit.routes';
export { balanceDtoSchema } from './http/wallet-dto.schema';

/** Users' wallets: balances, and the operators' deposits. */
export function createWallet(deps: Pick<PlatformDeps, 'config' | 'redis' | 'keys' | 'scripts'> & { markets: MarketStore }): WalletService {
  return new WalletService(deps.redis, deps.keys, deps.scripts, deps.markets, deps.config.streamMaxLen);
}
