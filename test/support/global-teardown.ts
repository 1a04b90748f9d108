import type { RedisServerProcess } from '../../src/platform/redis/redis-server-process';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__TEST_REDIS__ as RedisServerProcess | undefined;
  await server?.stop();
}
