import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { ExchangeBackend } from '../../clients/ccxt';
import { deleteByPrefix } from '../../src/platform/redis/redis-server-process';
import { startApiRole } from '../../src/transport/http/server';
import { startRole } from '../../src/transport/roles';
import { startWsRole } from '../../src/transport/ws/ws-role';
import { testContext, tokenFor } from './harness';

type Ctx = Awaited<ReturnType<typeof testContext>>;

/** The service in this process (api and worker roles) on a free port, for clients that speak HTTP. */
export interface RunningService {
  ctx: Ctx;
  base: string;
  /** A REST call with a user's token; answers the parsed body, and throws on a non-2xx status. */
  rest<T = unknown>(method: string, path: string, userId?: string, body?: unknown): Promise<T>;
  deposit(userId: string, currencyCode: string, amount: number): Promise<void>;
  /** The ccxt class against this service, signed in as `userId` (a JWT as apiKey). */
  exchange(userId?: string, config?: Record<string, unknown>): ExchangeBackend;
  /** Drops the service's Redis connection for good: from then on it answers 503. */
  cutRedis(): void;
  close(): Promise<void>;
}

export const uniqueUser = (name: string) => `${name}-${randomBytes(3).toString('hex')}`;

/** `ws`: also the websocket role, and the ccxt class pointed at its two sockets. */
export async function startService(opts: { worker?: boolean; ws?: boolean; env?: Record<string, string> } = {}): Promise<RunningService> {
  const ctx = await testContext(opts.env);
  const api = await startApiRole(ctx, 0);
  const worker = opts.worker ? await startRole('worker', ctx) : undefined;
  const ws = opts.ws ? await startWsRole(ctx, { port: 0 }) : undefined;
  const base = `http://127.0.0.1:${api.port}`;
  const sockets = ws ? { ws: { public: `ws://127.0.0.1:${ws.port}/ws`, private: `ws://127.0.0.1:${ws.port}/ws/user` } } : {};
  let redisCut = false;
  const rest = async <T>(method: string, path: string, userId?: string, body?: unknown): Promise<T> => {
    const res = await fetch(base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(userId === undefined ? {} : { authorization: `Bearer ${tokenFor(userId, userId === 'admin')}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    ctx,
    base,
    rest,
    async deposit(userId, currencyCode, amount) {
      await rest('POST', '/api/admin/deposits', 'admin', { userId, currencyCode, amount });
    },
    exchange(userId, config = {}) {
      return new ExchangeBackend({
        ...(userId === undefined ? {} : { apiKey: tokenFor(userId) }),
        urls: { api: { rest: base, ...sockets } },
        ...config,
      });
    },
    cutRedis() {
      redisCut = true;
      ctx.redis.disconnect();
    },
    async close() {
      await worker?.close();
      await ws?.close();
      await api.close();
      if (!redisCut) return ctx.cleanup();
      const redis = new Redis(process.env.REDIS_URL as string);
      await deleteByPrefix(redis, ctx.config.keyPrefix);
      redis.disconnect();
    },
  };
}

/** Polls `read` until `done` holds (the worker folds candles after the trade); fails after `ms`. */
export async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface RestLevel {
  price: number;
  quantity: number;
}

/** A REST book side as ccxt's [price, amount] pairs. */
export const levels = (side: RestLevel[]) => side.map((l) => [l.price, l.quantity]);
