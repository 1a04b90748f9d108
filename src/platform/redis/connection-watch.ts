import type { Logger } from '../config/logger';
import type { RedisClient } from './connection';

/**
 * Logs a connection's outage once when it starts and once when it ends, instead of ioredis's
 * "Unhandled error event" on every reconnect attempt.
 */
export function logOutages(client: RedisClient, log: Logger, name: string): void {
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    log.error({ err, connection: name }, `${name}: Redis connection lost, reconnecting`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ connection: name }, `${name}: Redis connection restored`);
  });
}
