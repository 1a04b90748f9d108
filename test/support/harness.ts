import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadConfig, type AppConfig } from '../../src/platform/config/env';
import { createLogger, type Logger } from '../../src/platform/config/logger';
import { createContext, type AppContext } from '../../src/transport/context';
import { createApp } from '../../src/transport/http/app';
import { deleteByPrefix } from '../../src/platform/redis/redis-server-process';
import { seedMarkets } from '../../src/markets/market-seeder';
import { DepositLedger } from './money';

export const TEST_SECRET = 'test-secret-0123456789abcdef';

/**
 * A context against the test Redis with a key prefix of its own, so test files never see each
 * other's data; `cleanup` removes every key under that prefix (on every master of a cluster).
 */
export async function testContext(
  overrides: Record<string, string> = {},
  /** The context's logger (silent when omitted): a test that reads the log passes its own. */
  log: Logger = createLogger((process.env.TEST_LOG_LEVEL as 'error' | undefined) ?? 'silent'),
): Promise<AppContext & { cleanup(): Promise<void> }> {
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const config: AppConfig = loadConfig({
    REDIS_URL: process.env.REDIS_URL,
    // the cluster run (REDIS_CLUSTER=1, global-setup.ts) and its shard count reach every test context
    ...(process.env.REDIS_CLUSTER ? { REDIS_CLUSTER: process.env.REDIS_CLUSTER } : {}),
    ...(process.env.ENGINE_SHARDS ? { ENGINE_SHARDS: process.env.ENGINE_SHARDS } : {}),
    JWT_SECRET: TEST_SECRET,
    KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    MARKETS_FILE: resolve(__dirname, '../../config/markets.json'),
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '200000',
    // a loaded test machine can stall a command past the production 1.5 s; the fault tests set their own
    REDIS_COMMAND_TIMEOUT_MS: '10000',
    ...overrides,
  });
  const ctx = await createContext(config, log);
  await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
  // money conservation counts every deposit of the prefix from the start (test/support/money.ts)
  DepositLedger.of(ctx);
  return Object.assign(ctx, {
    async cleanup() {
      await deleteByPrefix(ctx.redis, prefix);
      await ctx.close();
    },
  });
}

export function tokenFor(userId: string, admin = false): string {
  return jwt.sign({ sub: userId, ...(admin ? { role: 'admin' } : {}) }, TEST_SECRET, { algorithm: 'HS256', expiresIn: '1h' });
}

export const bearer = (userId: string, admin = false) => `Bearer ${tokenFor(userId, admin)}`;

export { createApp };
