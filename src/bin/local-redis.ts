import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import Redis from 'ioredis';
import type { Logger } from '../config/logger';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

async function answers(url: string, timeoutMs: number): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs });
  r.on('error', () => undefined); // a refused connection is the answer here, not a fault
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * The embedded default of `npm start`: use the Redis at REDIS_URL; when none answers on a local
 * address but redis-server is installed, start one with AOF on under `dataDir`; otherwise fail
 * with the two ways to get one. Returns the child it started, if any.
 */
export async function ensureRedis(url: string, dataDir: string, log: Logger): Promise<ChildProcess | undefined> {
  if (await answers(url, 1500)) return undefined;
  const u = new URL(url);
  if (!LOCAL_HOSTS.has(u.hostname) || !hasRedisServer()) {
    throw new Error(
      `No Redis answers at ${url}. Install Redis (e.g. \`apt-get install redis-server\`, then run \`npm start\` ` +
        'again and it is started for you), or start one with `docker compose up -d redis`.',
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const port = u.port || '6379';
  const child = spawn(
    'redis-server',
    ['--port', port, '--bind', '127.0.0.1', '--dir', dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    if (await answers(url, 500)) {
      log.info({ url, dataDir, pid: child.pid }, 'no Redis was running: started redis-server (AOF on) under the data dir');
      return child;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`started redis-server on port ${port} but it does not answer`);
}
