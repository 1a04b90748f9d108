import { createCopy, type Copy } from '../copy';
import { createFeeds, type AggregatorFeeds } from '../feeds';
import { createFutures, type Futures } from '../futures';
import { createMarketData, type MarketData } from '../market-data';
import { createMarkets, type Markets } from '../markets';
import type { AppConfig } from '../platform/config/env';
import { createLogger, type Logger } from '../platform/config/logger';
import type { PlatformDeps } from '../platform/deps';
import { createRedis, whenReady } from '../platform/redis/connection';
import { EngineShards } from '../platform/redis/engine-shards';
import { checkShardPlacement } from '../platform/redis/shard-placement';
import { Scripts } from '../platform/redis/scripts';
import { createSpot, type Spot } from '../spot';
import { createFunds, createWallet, type Funds, type WalletService } from '../wallet';

/**
 * Everything a role needs, built once: the composition root. Each feature is built by its own
 * factory from the platform and the features below it; no role keeps state of its own.
 */
export interface AppContext extends PlatformDeps {
  markets: Markets;
  /** Home shards, transfers, escrow and the reconciler (one shard: homes and the reconciler only). */
  funds: Funds;
  wallets: WalletService;
  spot: Spot;
  marketData: MarketData;
  futures: Futures;
  copy: Copy;
  feeds: AggregatorFeeds;
  close(): Promise<void>;
}

export async function createContext(config: AppConfig, log: Logger = createLogger(config.logLevel)): Promise<AppContext> {
  // the engine connection fails fast and never resends (connection.ts); it refuses commands until ready
  const redis = createRedis({
    url: config.redisUrl,
    cluster: config.redisCluster,
    natMap: config.redisClusterNatMap,
    name: 'engine',
    commandTimeoutMs: config.redisCommandTimeoutMs,
    log,
  });
  await whenReady(redis, 10_000).catch((err: Error) => {
    redis.disconnect();
    throw new Error(`${err.message} at ${config.redisUrl}`);
  });
  const shards = new EngineShards(config.keyPrefix, config.engineShards);
  // shards sharing a master add no capacity: said at start, in one warn line per master
  await checkShardPlacement(redis, config.engineShards, log);
  const keys = shards.keys(0);
  const scripts = new Scripts(redis, undefined, config.redisCommandTimeoutMs);
  await scripts.preload();
  const platform: PlatformDeps = { config, log, redis, keys, shards, scripts };
  const markets = createMarkets(platform);
  const marketData = createMarketData({ ...platform, markets: markets.store });
  const funds = await createFunds({ ...platform, markets: markets.store }).catch((err: Error) => {
    redis.disconnect();
    throw err;
  });
  const futures = createFutures({ ...platform, markets: markets.store, marketData: marketData.service, funding: funds });
  return {
    ...platform,
    markets,
    funds,
    wallets: createWallet({ ...platform, markets: markets.store, funds }),
    spot: createSpot({ ...platform, markets: markets.store, funding: funds }),
    marketData,
    futures,
    copy: createCopy({ ...platform, markets: markets.store, futures, funds }),
    feeds: createFeeds({ ...platform, markets: markets.store, marketData, prices: futures.prices }),
    async close() {
      await funds.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
