import type { AppConfig } from './config/env';
import type { Logger } from './config/logger';
import type { RedisClient } from './redis/connection';
import type { Keys } from './redis/keys';
import type { Scripts } from './redis/scripts';

/** What every feature is built on: configuration, the log, the engine connection, key names and scripts. */
export interface PlatformDeps {
  config: AppConfig;
  log: Logger;
  redis: RedisClient;
  keys: Keys;
  scripts: Scripts;
}
