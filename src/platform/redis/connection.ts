import Redis, { Cluster, type RedisOptions } from 'ioredis';
import type { Logger } from '../config/logger';
import { logOutages } from './connection-watch';
import { failUnanswered } from './command-deadline';
import { dropWhenSilent } from './silence-watchdog';

export type RedisClient = Redis | Cluster;

export interface ConnectionOptions {
  url: string;
  cluster?: boolean;
  /** Where to reach cluster nodes that CLUSTER SLOTS names by another address (REDIS_CLUSTER_NAT_MAP). */
  natMap?: Record<string, { host: string; port: number }>;
  /** BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
  blocking?: boolean;
  name?: string;
  /**
   * Makes this the engine connection, which fails fast (docs/api-contract.md#exactly-once): a command is
   * refused at once while Redis is unreachable, bounded by this many milliseconds once sent, and
   * never sent again after a reconnect. See engineOptions.
   */
  commandTimeoutMs?: number;
  /** Logs the connection's outages, once each way (connection-watch.ts), instead of ioredis's console noise. */
  log?: Logger;
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
 * - a command without a reply within `commandTimeoutMs` fails ("Command timed out",
 *   command-deadline.ts);
 * - a connection to a server silent for half that is dropped (silence-watchdog.ts): what was in
 *   flight fails then, and later commands at once, instead of each waiting out the timeout on a
 *   server that has stopped.
 * A command that failed after it was sent may still have run (its reply is what was lost):
 * callers find out by operation id, clientOrderId or Idempotency-Key, never by sending it again.
 */
function engineOptions(commandTimeoutMs: number): RedisOptions {
  return {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
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
  let client: RedisClient;
  if (opts.cluster) {
    const cluster = clusterClient(opts, base);
    // each node connection of the engine's cluster client fails and drops as the one-server connection does
    if (opts.commandTimeoutMs) cluster.on('+node', (node: Redis) => failFast(node, opts.commandTimeoutMs as number));
    client = cluster;
  } else {
    const single = new Redis(opts.url, base);
    if (opts.commandTimeoutMs) failFast(single, opts.commandTimeoutMs);
    client = single;
  }
  if (opts.log) logOutages(client, opts.log, opts.name ?? 'redis');
  return client;
}

function failFast(client: Redis, commandTimeoutMs: number): void {
  failUnanswered(client, commandTimeoutMs);
  // Half the command timeout: a healthy server answers a PING in a millisecond, and commands in
  // flight fail when the connection drops, so a stall costs a request well under the timeout.
  dropWhenSilent(client, Math.max(100, commandTimeoutMs / 2));
}

function clusterClient(opts: ConnectionOptions, base: RedisOptions): Cluster {
  const u = new URL(opts.url);
  return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
    redisOptions: {
      ...base,
      password: u.password || undefined,
      username: u.username || undefined,
    },
    enableAutoPipelining: !opts.blocking,
    ...(opts.natMap && Object.keys(opts.natMap).length ? { natMap: opts.natMap } : {}),
    // retryDelayOnFailover 0: a command whose node connection closed may have run, so it is never
    // sent again (ioredis would resend it after a failover delay); MOVED, ASK and CLUSTERDOWN
    // replies still redirect, as they mean the command did not run
    ...(opts.commandTimeoutMs ? { enableOfflineQueue: false, retryDelayOnFailover: 0, clusterRetryStrategy: reconnectDelayMs } : {}),
  });
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
