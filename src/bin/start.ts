import { withDevSecret } from '../platform/config/dev-secret';
import { loadConfig, type AppConfig } from '../platform/config/env';
import { createLogger } from '../platform/config/logger';
import { createContext } from '../transport/context';
import { seedMarkets } from '../markets';
import type { RedisServerProcess } from '../platform/redis/redis-server-process';
import { ensureRedis } from './local-redis';
import { startRole, type StartedRole } from '../transport/roles';
import { startDemoIfAsked } from '../../scripts/demo/demo-market';

/**
 * `npm start`: the roles named in ROLES (default api, ws and worker) in one process, against
 * REDIS_URL. Logs one line per role with its address once it is ready.
 */
async function main(): Promise<void> {
  let config: AppConfig;
  let dev: ReturnType<typeof withDevSecret>['devSecret'];
  try {
    ({ config, devSecret: dev } = withDevSecret(loadConfig()));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  const log = createLogger(config.logLevel);
  if (dev) {
    log.warn(
      { secretFile: dev.path, created: dev.created },
      `JWT_SECRET and JWT_PUBLIC_KEY are not set: tokens are checked with the development secret in ${dev.path} ` +
        `(${dev.created ? 'made now' : 'made earlier'}; \`npm run token\` signs with it). Set JWT_SECRET in production.`,
    );
  }
  let ownRedis: RedisServerProcess | undefined;
  try {
    ownRedis = await ensureRedis(config.redisUrl, config.dataDir, log);
  } catch (err) {
    log.fatal((err as Error).message);
    process.exit(1);
  }
  const ctx = await createContext(config, log);
  await seedMarkets(config.marketsFile, ctx.markets.service, log);

  const started: StartedRole[] = [];
  for (const role of config.roles) {
    const r = await startRole(role, ctx);
    started.push(r);
    log.info({ role: r.role, address: r.address }, `${r.role} ready at ${r.address}`);
  }
  // DEMO=1: the demo market trades through the api role just started (docs/live-page.md)
  const api = started.find((r) => r.role === 'api')?.address;
  const demo = await startDemoIfAsked(process.env, api, config.jwtSecret, (line) => log.info(line));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await demo?.stop().catch((err) => log.error({ err }, 'demo stop failed'));
    for (const r of started.reverse()) await r.close().catch((err) => log.error({ err, role: r.role }, 'close failed'));
    await ctx.close();
    await ownRedis?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
