import type { MarketStore } from '../markets';
import type { PlatformDeps } from '../platform/deps';
import { ShardLinks, shardServer } from '../platform/redis/shard-links';
import { accountHome, Escrow } from './escrow';
import { mergedMoney, type MinorMargins } from './merged-balances';
import { HomeRegistry } from './home-registry';
import { Reconciler } from './reconciler';
import { TransferLedger } from './transfer-ledger';
import { TransferRelay } from './transfer-relay';

/**
 * Users' money across engine shards: home shards, transfers between home and escrow, the escrow
 * policy and the reconciler (docs/architecture.md, "Engine shards: money"). With one shard there is no
 * escrow and no relay: home is the market shard and nothing here runs.
 */
export interface Funds {
  homes: HomeRegistry;
  ledger: TransferLedger;
  /** null with ENGINE_SHARDS = 1. */
  relay: TransferRelay | null;
  escrow: Escrow | null;
  reconciler: Reconciler;
  /** Escrow.fund with several shards; nothing to do with one (the wallet is the home ledger). */
  fund(userId: string, shard: number, cur: string, minor: string, acct?: string): Promise<void>;
  /** Futures accounts' margin summed over every shard, transfers in flight once (merged-balances.ts). */
  mergedAccounts(userId: string, accountIds: string[]): Promise<MinorMargins>;
  close(): Promise<void>;
}

export async function createFunds(deps: Pick<PlatformDeps, 'config' | 'redis' | 'shards' | 'scripts'> & { markets: MarketStore }): Promise<Funds> {
  const { config, redis, shards, scripts } = deps;
  const homes = new HomeRegistry(redis, shards);
  const homeOf = (userId: string) => homes.of(userId);
  const mergedAccounts = async (userId: string, ids: string[]) => (await mergedMoney(redis, shards, userId, ids)).accounts;
  const ledger = new TransferLedger(redis, shards, scripts, config.streamMaxLen);
  const reconciler = new Reconciler(redis, shards, deps.markets, ledger, (shard) => shardServer(redis, shard), homeOf);
  if (shards.count === 1) {
    return { homes, ledger, relay: null, escrow: null, reconciler, fund: async () => undefined, mergedAccounts, close: async () => undefined };
  }
  // refuses to start when a shard's server can make no write durable (shard-links.ts)
  const links = await ShardLinks.open(redis, config.redisUrl, shards.count, config.relayWaitMs);
  const relay = new TransferRelay(ledger, links, (t) => (t.acct ? Promise.resolve(accountHome(t.acct)) : homes.of(t.user)));
  const escrow = new Escrow(redis, shards, homes, ledger, relay, {
    headroomPercent: config.escrowHeadroomPercent,
    idleMs: config.escrowIdleSeconds * 1000,
  });
  return {
    homes, ledger, relay, escrow, reconciler,
    fund: async (userId, shard, cur, minor, acct) => {
      await escrow.fund(userId, shard, cur, minor, acct);
    },
    mergedAccounts,
    close: () => links.close(),
  };
}

