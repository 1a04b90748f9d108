import Redis, { Cluster, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

export interface ConnectionOptions {
  url: string;
  cluster?: boolean;
  /** BullMQ's blocking connections need `maxRetriesPerRequest: null`. */
  blocking?: boolean;
  name?: string;
}

/** The one place connections are made; a cluster URL gives a cluster client with the same API. */
export function createRedis(opts: ConnectionOptions): RedisClient {
  const base: RedisOptions = {
    connectionName: opts.name,
    maxRetriesPerRequest: opts.blocking ? null : 3,
    enableAutoPipelining: !opts.blocking,
  };
  if (opts.cluster) {
    const u = new URL(opts.url);
    return new Cluster([{ host: u.hostname, port: Number(u.port || 6379) }], {
      redisOptions: { ...base, password: u.password || undefined, username: u.username || undefined },
      enableAutoPipelining: !opts.blocking,
    });
  }
  return new Redis(opts.url, base);
}
