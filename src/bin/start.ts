import { withDevSecret } from '../platform/config/dev-secret';
import { loadConfig, type AppConfig, type Role } from '../platform/config/env';
import { createLogger, type Logger } from '../platform/config/logger';
import { seedMarkets } from '../markets';
import { uwsNativeProblem } from '../transport/ws/uws-native';
import { startDemoIfAsked } from '../demo/demo-market';
import { claimPrefix } from './deployment-claim';
import { ensureRedis } from './local-redis';
import { Shutdown } from './shutdown';
import { StartupError } from './startup-error';

/** Ctrl-C ends the process within this, whatever hangs (docs/operations.md#npm-start-its-redis-and-how-it-stops). */
const SHUTDOWN_DEADLINE_MS = 5000;
/** The demo's share of it: cancelling its orders through the api role still running. */
const DEMO_STOP_MS = 3000;

/**
 * `npm start`: the roles named in ROLES (default api, ws and worker) in one process, against
 * REDIS_URL. Logs one line per role with its address once it is ready; a reason not to start is
 * one line on stderr, and whatever had started is stopped again.
 */
async function main(): Promise<void> {
  let config: AppConfig;
  let dev: ReturnType<typeof withDevSecret>['devSecret'];
  try {
    ({ config, devSecret: dev } = withDevSecret(loadConfig()));
  } catch (err) {
    return fail((err as Error).message);
  }
  const log = createLogger(config.logLevel);
  const shutdown = new Shutdown(log, SHUTDOWN_DEADLINE_MS);
  shutdown.onSignals();
  try {
    await start(config, log, shutdown);
    if (dev) {
      log.warn(
        { secretFile: dev.path, created: dev.created },
        `JWT_SECRET and JWT_PUBLIC_KEY are not set: tokens are checked with the development secret in ${dev.path} ` +
          `(${dev.created ? 'made now' : 'made earlier'}; \`npm run token\` signs with it). Set JWT_SECRET in production.`,
      );
    }
  } catch (err) {
    console.error(`npm start: ${startupMessage(err, config)}`);
    if (!(err instanceof StartupError) && !isPortInUse(err)) log.debug({ err }, 'start failed');
    await shutdown.run(1);
  }
}

async function start(config: AppConfig, log: Logger, shutdown: Shutdown): Promise<void> {
  if (config.roles.includes('ws')) {
    const problem = uwsNativeProblem();
    if (problem) throw new StartupError(problem);
  }
  const redis = await ensureRedis(config.redisUrl, config.dataDir);
  shutdown.add('own Redis', () => redis.stop());
  shutdown.finally(() => redis.stopNow());
  log.info({ redis: redis.url, own: redis.own }, `writing into ${redis.whose}`);

  // after the native check: loading the roles loads uWebSockets.js, which would fall back noisily
  const { createContext } = await import('../transport/context');
  const { startRole } = await import('../transport/roles');
  const ctx = await createContext(config, log);
  shutdown.add('Redis connections', () => ctx.close());
  await claimPrefix(ctx);
  await seedMarkets(config.marketsFile, ctx.markets.service, log);

  let api: string | undefined;
  for (const role of config.roles) {
    const r = await startRole(role, ctx).catch((err: unknown) => {
      throw isPortInUse(err) ? new StartupError(portInUse(role, config)) : err;
    });
    shutdown.add(r.role, r.close);
    if (r.role === 'api') api = r.address;
    log.info({ role: r.role, address: r.address }, `${r.role} ready at ${r.address}`);
  }
  // DEMO=1: the demo market trades through the api role just started (docs/live-page.md); it is
  // stopped first, while that role still answers, so it can cancel what it placed
  const demo = await startDemoIfAsked(process.env, api, config.jwtSecret, (line) => log.info(line));
  if (demo) shutdown.add('demo', () => withinMs(demo.stop(), DEMO_STOP_MS, 'demo: stop'));
}

function isPortInUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

function portInUse(role: Role, config: AppConfig): string {
  const [name, port] = role === 'ws' ? ['WS_PORT', config.wsPort] : ['PORT', config.port];
  return `port ${port} (${name}) is in use: another program (an earlier npm start?) listens there; stop it, or set ${name} to a free port`;
}

function startupMessage(err: unknown, config: AppConfig): string {
  if (err instanceof StartupError) return err.message;
  const msg = (err as Error)?.message ?? String(err);
  if (/ECONNREFUSED|ETIMEDOUT|ENOTFOUND|Connection is closed/.test(msg))
    return `Redis at ${config.redisUrl} does not answer (${msg})`;
  return `${msg} (LOG_LEVEL=debug logs the stack)`;
}

function withinMs<T>(p: Promise<T>, ms: number, what: string): Promise<T | void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

void main();
