import { startRedisServer } from '../../src/platform/redis/redis-server-process';

/** Starts a private redis-server for the whole run, unless REDIS_URL points at one already. */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer().catch((err: Error) => {
    throw new Error(`${err.message}; install redis-server or set REDIS_URL`);
  });
  process.env.REDIS_URL = server.url;
  (globalThis as Record<string, unknown>).__TEST_REDIS__ = server;
}
