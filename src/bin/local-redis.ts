import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { redisAnswers, startRedisServer, type RedisServerProcess } from '../platform/redis/redis-server-process';
import type { Logger } from '../platform/config/logger';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * The embedded default of `npm start`: use the Redis at REDIS_URL; when none answers on a local
 * address but redis-server is installed, start one with AOF on under `dataDir`; otherwise fail
 * with the two ways to get one. Returns the child it started, if any.
 */
export async function ensureRedis(url: string, dataDir: string, log: Logger): Promise<RedisServerProcess | undefined> {
  if (await redisAnswers(url, 1500)) return undefined;
  const u = new URL(url);
  if (!LOCAL_HOSTS.has(u.hostname) || !hasRedisServer()) {
    throw new Error(
      `No Redis answers at ${url}. Install Redis (e.g. \`apt-get install redis-server\`, then run \`npm start\` ` +
        'again and it is started for you), or start one in Docker: `docker run -d -p 127.0.0.1:6379:6379 redis:7 ' +
        'redis-server --appendonly yes` (the whole stack in containers: `docker compose up`, docs/operations.md).',
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const server = await startRedisServer({ port: Number(u.port || 6379), dir: dataDir, appendOnly: true });
  log.info({ url, dataDir, pid: server.child.pid }, 'no Redis was running: started redis-server (AOF on) under the data dir');
  return server;
}
