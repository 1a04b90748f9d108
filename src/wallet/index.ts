import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import type { Funds } from './funds';
import { WalletService } from './wallet.service';

export { createFunds, type Funds } from './funds';

export { WalletService, type BalanceDto } from './wallet.service';
export { walletRoutes } from './http/wallet.routes';
export { adminDepositRoutes } from './http/admin-deposit.routes';
export { adminReconcileRoutes } from './http/admin-reconcile.routes';
export { balanceDtoSchema } from './http/wallet-dto.schema';
export { startWalletWorkers } from './wallet-workers';
export type { Escrow } from './escrow';
export type { HomeRegistry } from './home-registry';
export type { Reconciler, CurrencyReconciliation } from './reconciler';
export type { TransferLedger, Transfer } from './transfer-ledger';
export type { TransferRelay } from './transfer-relay';

/** Users' wallets: balances, and the operators' deposits. */
export function createWallet(
  deps: Pick<PlatformDeps, 'config' | 'redis' | 'shards' | 'scripts'> & { markets: MarketStore; funds: Funds },
): WalletService {
  return new WalletService(deps.redis, deps.shards, deps.scripts, deps.markets, deps.funds.homes, deps.config.streamMaxLen);
}
