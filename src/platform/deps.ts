import type { AppConfig } from './config/env';
import type { Logger } from './config/logger';
import type { RedisClient } from './redis/connection';
import type { EngineShards } from './redis/engine-shards';
import type { Keys } from './redis/keys';
import type { Scripts } from './redis/scripts';

/** What every feature is built on: configuration, the log, the engine connection, key names and scripts. */
export interface PlatformDeps {
  config: AppConfig;
  log: Logger;
  redis: RedisClient;
  /** Shard 0's keys: reference data and, while ENGINE_SHARDS is 1, the whole engine. */
  keys: Keys;
  /** Every engine shard's keys (ENGINE_SHARDS). */
  shards: EngineShards;
  scripts: Scripts;
}
