import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { loadConfig } from '../src/platform/config/env';
import { createLogger } from '../src/platform/config/logger';
import type { AppContext } from '../src/transport/context';
import { createApp } from '../src/transport/http/app';
import { listRoutes } from '../src/transport/http/route-list';

/** `npm run routes`: prints every route as `METHOD /path`, one a line, without touching Redis. */
// no token is ever checked here, so any key will do; a throwaway one when none is configured
const config = loadConfig({ JWT_SECRET: randomBytes(32).toString('hex'), ...process.env, LOG_LEVEL: 'silent' });
const redis = new Redis(config.redisUrl, { lazyConnect: true });
// Routers only capture services in closures; nothing is called while the routes are listed, so any
// service the app asks for is a stand-in, however deep (ctx.futures.market, ...).
const standIn = (): object => new Proxy({}, { get: (_t, prop) => (prop === 'then' ? undefined : standIn()) });
const known: Partial<AppContext> = { config, log: createLogger('silent'), redis };
const ctx = new Proxy(known, {
  get: (target, prop: string) => (prop in target ? target[prop as keyof AppContext] : standIn()),
}) as AppContext;
for (const r of listRoutes(createApp(ctx))) console.log(r);
redis.disconnect();
