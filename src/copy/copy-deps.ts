import type { Logger } from '../platform/config/logger';
import { AppError } from '../domain/errors';
import type { CopyEngine } from './copy-engine';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { Futures, FuturesAccountReader, FuturesAccountStats } from '../futures';
import type { CopyStore } from './copy-store';

/** The part of futures copy trading uses: accounts, transfers, orders and deals (never futures keys). */
export type CopyFuturesPort = Pick<Futures, 'accounts' | 'engine' | 'orders' | 'market'>;

/** What every copy-trading service works with: its records, the money scripts, and futures through its port. */
export interface CopyDeps {
  redis: RedisClient;
  keys: Keys;
  log: Logger;
  markets: MarketStore;
  store: CopyStore;
  reader: FuturesAccountReader;
  /** the engine's trading aggregates and rankings of futures accounts */
  stats: FuturesAccountStats;
  engine: CopyEngine;
  futures: CopyFuturesPort;
}

/**
 * The shard copy trading's records and scripts are on: the futures accounts it makes (slaves,
 * subscriptions, masters) are registered there, not at their owner's home, so its scripts find them.
 */
export const COPY_SHARD = 0;

/** Subscription end reasons (CopyFollowingHistoryDto.reason, 2.8 deactivationReason). */
export const FinishReason = {
  Slave: 'SLAVE_FINISHED',
  MasterClosed: 'MASTER_CLOSED',
  StopLoss: 'STOP_LOSS',
  TakeProfit: 'TAKE_PROFIT',
} as const;

export const iso = (ms: string | number) => new Date(Number(ms)).toISOString();
export const isoOrNull = (ms: string | undefined) => (ms ? iso(ms) : null);

/**
 * Runs a close; false when the order was no longer open (closed meanwhile by the master's mirror,
 * a finish, TP/SL or the follower): the state wanted is there already.
 */
export async function closedOrClosing(close: () => Promise<unknown>): Promise<boolean> {
  try {
    await close();
    return true;
  } catch (err) {
    if (err instanceof AppError && err.status === 409) return false;
    throw err;
  }
}
