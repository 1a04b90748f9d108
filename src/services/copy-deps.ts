import type { Logger } from '../config/logger';
import type { CopyEngine } from '../engine/copy-engine';
import type { MarketStore } from '../engine/market-store';
import type { RedisClient } from '../redis/connection';
import type { Keys } from '../redis/keys';
import type { CopyAccountReader } from './copy-account-reader';
import type { CopyStore } from './copy-store';
import type { FuturesServices } from './futures-services';

/** What every copy-trading service works with: its records, the money scripts, and the futures services. */
export interface CopyDeps {
  redis: RedisClient;
  keys: Keys;
  log: Logger;
  markets: MarketStore;
  store: CopyStore;
  reader: CopyAccountReader;
  engine: CopyEngine;
  futures: FuturesServices;
}

/** Subscription end reasons (CopyFollowingHistoryDto.reason, 2.8 deactivationReason). */
export const FinishReason = { Slave: 'SLAVE_FINISHED', MasterClosed: 'MASTER_CLOSED' } as const;

export const iso = (ms: string | number) => new Date(Number(ms)).toISOString();
export const isoOrNull = (ms: string | undefined) => (ms ? iso(ms) : null);
