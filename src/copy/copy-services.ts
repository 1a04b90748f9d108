import type { Logger } from '../platform/config/logger';
import { CopyEngine } from './copy-engine';
import type { MarketStore } from '../markets/market-store';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import { CopyAccountReader } from './copy-account-reader';
import type { CopyDeps } from './copy-deps';
import { CopyHistoryService } from './copy-history.service';
import { CopyMasterService } from './copy-master.service';
import { CopyMirrorService } from './copy-mirror.service';
import { CopySettlementService } from './copy-settlement.service';
import { CopySlaveService } from './copy-slave.service';
import { CopyStore } from './copy-store';
import { CopyViews } from './copy-views';
import type { FuturesServices } from '../futures/futures-services';

/** The copy-trading side of the composition root (src/transport/context.ts). */
export interface CopyServices {
  copyMasters: CopyMasterService;
  copySlaves: CopySlaveService;
  copyHistory: CopyHistoryService;
  copyMirror: CopyMirrorService;
  copySettlement: CopySettlementService;
}

export function createCopyServices(deps: {
  log: Logger;
  redis: RedisClient;
  keys: Keys;
  scripts: Scripts;
  marketStore: MarketStore;
  futures: FuturesServices;
}): CopyServices {
  const { log, redis, keys, scripts, marketStore, futures } = deps;
  const d: CopyDeps = {
    redis, keys, log, futures, markets: marketStore,
    store: new CopyStore(redis, keys),
    reader: new CopyAccountReader(redis, keys, marketStore, futures.futuresPrices),
    engine: new CopyEngine(keys, scripts),
  };
  const views = new CopyViews(d);
  const copySettlement = new CopySettlementService(d);
  return {
    copyMasters: new CopyMasterService(d, views, copySettlement),
    copySlaves: new CopySlaveService(d, views, copySettlement),
    copyHistory: new CopyHistoryService(d),
    copyMirror: new CopyMirrorService(d),
    copySettlement,
  };
}
