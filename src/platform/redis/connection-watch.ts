import type { Logger } from '../config/logger';

/** What is watched: an ioredis client, or anything else that reports errors and readiness. */
export interface Watchable {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
}

/**
 * Logs a connection's outage once when it starts and once when it ends, instead of ioredis's
 * "Unhandled error event" on every reconnect attempt.
 */
export function logOutages(client: Watchable, log: Logger, name: string): void {
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

/**
 * For emitters that report only errors (BullMQ's workers and queues, which reconnect by themselves
 * and say so on every attempt): one line per `everyMs` with how many errors came since.
 */
export function logErrorsThrottled(emitter: Pick<Watchable, 'on'>, log: Logger, name: string, everyMs = 10_000): void {
  let last = 0;
  let since = 0;
  emitter.on('error', (err: Error) => {
    since++;
    if (Date.now() - last < everyMs) return;
    log.error({ err, errors: since, source: name }, `${name}: ${err.message} (retrying)`);
    last = Date.now();
    since = 0;
  });
}
