import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { loadConfig, type AppConfig } from '../../../src/platform/config/env';
import { createLogger } from '../../../src/platform/config/logger';
import { seedMarkets } from '../../../src/markets/market-seeder';
import { createContext, type AppContext } from '../../../src/transport/context';

/**
 * A silent context on a fresh key prefix with the project's markets seeded: what an engine bench
 * runs on. `env` adds to or overrides the configuration (REDIS_CLUSTER, ENGINE_SHARDS, ...).
 */
export async function benchContext(url: string, env: Record<string, string> = {}): Promise<{ ctx: AppContext; config: AppConfig; prefix: string }> {
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const config = benchConfig(url, prefix, env);
  const ctx = await createContext(config, createLogger('silent'));
  try {
    await seedMarkets(config.marketsFile, ctx.markets.service, ctx.log);
  } catch (err) {
    await ctx.close();
    throw err;
  }
  return { ctx, config, prefix };
}

/** What tokens of bench users are signed with. */
export const BENCH_JWT_SECRET = 'bench-secret-0123456789abcdef';

/** A bench's configuration on `prefix`: silent, the project's markets file, long command deadlines. */
export function benchConfig(url: string, prefix: string, env: Record<string, string> = {}): AppConfig {
  return loadConfig({
    REDIS_URL: url,
    JWT_SECRET: BENCH_JWT_SECRET,
    KEY_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    MARKETS_FILE: resolve(__dirname, '../../../config/markets.json'),
    // as bench:futures: a pipeline on a busy box, or on a server under callgrind (an A/B of two
    // engines' instructions, docs/performance.md), can take longer than the API's 1 s per command
    REDIS_COMMAND_TIMEOUT_MS: '60000',
    ...env,
  });
}
