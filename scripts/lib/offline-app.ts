import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import Redis from 'ioredis';
import { loadConfig } from '../../src/platform/config/env';
import { createLogger } from '../../src/platform/config/logger';
import { EngineShards } from '../../src/platform/redis/engine-shards';
import type { AppContext } from '../../src/transport/context';
import { createApp } from '../../src/transport/http/app';

/**
 * The REST app as `npm start` builds it, without Redis: routers only capture services in closures
 * and nothing is called while routes are listed or documented, so every service is a stand-in,
 * however deep (ctx.futures.market, ...). The Redis client connects only if a route is called that
 * reaches it, and then fails fast rather than queueing; close() drops it.
 */
export function offlineApp(env: NodeJS.ProcessEnv = process.env): { app: Express; close: () => void } {
  // no token is ever checked here, so any key will do; a throwaway one when none is configured
  const config = loadConfig({ JWT_SECRET: randomBytes(32).toString('hex'), ...env, LOG_LEVEL: 'silent' });
  // a command fails at once instead of waiting for a connection (a test may call a route that reaches Redis)
  const redis = new Redis(config.redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  const standIn = (): object => new Proxy({}, { get: (_t, prop) => (prop === 'then' ? undefined : standIn()) });
  const shards = new EngineShards(config.keyPrefix, config.engineShards);
  // key names are built when the app is (the rate limiter's prefix): the real builders, not stand-ins
  const known: Partial<AppContext> = { config, log: createLogger('silent'), redis, shards, keys: shards.keys(0) };
  const ctx = new Proxy(known, {
    get: (target, prop: string) => (prop in target ? target[prop as keyof AppContext] : standIn()),
  }) as AppContext;
  // a client whose one attempt failed has ended already; disconnecting it again would leave a timer behind
  return { app: createApp(ctx), close: () => (redis.status === 'end' ? undefined : redis.disconnect()) };
}
