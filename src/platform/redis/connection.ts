import Redis, { Cluster, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

export interface ConnectionOptions {
  url: string;
  cluster?: boolean;
  /** BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
  blocking?: boolean;
  name?: string;
  /**
   * Makes this the engine connection, which fails fast (DESIGN 4, "Exactly once"): a command is
   * refused at once while Redis is unreachable, bounded by this many milliseconds once sent, and
   * never sent again after a reconnect. See engineOptions.
   */
  commandTimeoutMs?: number;
}

/** Reconnect quickly and keep trying: at most a second between attempts, however long the outage. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** Math.min(attempt, 5), 1000);
}

/**
 * ioredis by default queues commands while disconnected and resends unanswered ones after a
 * reconnect: a request then waits out the whole outage and runs long after its client gave up,
 * and a script whose reply was lost runs twice. The engine connection turns all of that off:
 * - no offline queue: while not connected a command fails at once ("Stream isn't writeable");
 * - no resend, and commands in flight when the connection drops fail at once (no retries);
 * - a command without a reply within `commandTimeoutMs` fails ("Command timed out"), and a socket
 *   silent that long while replies are owed is dropped, so later commands fail at once too
 *   instead of piling up on a server that has stopped.
 * A command that failed after it was sent may still have run (its reply is what was lost):
 * callers find out by operation id, clientOrderId or Idempotency-Key, never by sending it again.
 */
function engineOptions(commandTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    socketTimeout: commandTimeoutMs,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    retryStrategy: reconnectDelayMs,
  };
}

/** The one place connections are made; a cluster URL gives a cluster client with the same API. */
export function createRedis(opts: ConnectionOptions): RedisClient {
  const base: RedisOptions = {
    connectionName: opts.name,
    maxRetriesPerRequest: opts.blocking ? null : 3,
    enableAutoPipelining: !opts.blocking,
    ...(opts.commandTimeoutMs ? engineOptions(opts.commandTimeoutMs) : {}),
  };
  if (opts.cluster) {
    const u = new URL(opts.url);
    return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
      redisOptions: { ...base, password: u.password || undefined, username: u.username || undefined },
      enableAutoPipelining: !opts.blocking,
      ...(opts.commandTimeoutMs ? { enableOfflineQueue: false, clusterRetryStrategy: reconnectDelayMs } : {}),
    });
  }
  return new Redis(opts.url, base);
}

/**
 * Resolves once the connection is ready: a connection without an offline queue refuses commands
 * until then. Rejects if it is not ready within `timeoutMs`.
 */
export function whenReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}
