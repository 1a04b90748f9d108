import type { ChildProcess } from 'node:child_process';
import type Redis from 'ioredis';
import { deleteByPrefix, startRedisServer } from '../../../src/platform/redis/redis-server-process';

export { deleteByPrefix };

/** A Redis a benchmark may use: its own private server, or the one REDIS_URL names. */
export interface BenchRedis {
  url: string;
  /** True when the server was started here, so the bench may FLUSHALL or reconfigure it freely. */
  privateServer: boolean;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A crashed or interrupted bench must not leave a redis-server behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const c of children) c.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

export interface PrivateRedisOptions {
  /** Extra redis-server arguments, e.g. ['--appendonly', 'yes'] to measure with AOF. */
  extraArgs?: string[];
  /** Honour REDIS_URL when set (default true). */
  allowEnvUrl?: boolean;
  /** The server binary, when not the `redis-server` on the PATH. */
  binary?: string;
}

/**
 * Starts redis-server on a free port in a fresh temp dir (no RDB, no AOF unless asked), never the
 * shared one on 6379; REDIS_URL, when set, is used instead and left as it was found.
 */
export async function startBenchRedis(opts: PrivateRedisOptions = {}): Promise<BenchRedis> {
  const envUrl = process.env.REDIS_URL;
  if (envUrl && opts.allowEnvUrl !== false) {
    return { url: envUrl, privateServer: false, stop: async () => undefined };
  }
  installExitHook();
  const server = await startRedisServer({ extraArgs: opts.extraArgs, binary: opts.binary });
  children.add(server.child);
  return {
    url: server.url,
    privateServer: true,
    async stop() {
      await server.stop();
      children.delete(server.child);
    },
  };
}

/** Leaves the server as the bench found it: a private one is flushed, a shared one loses only this run's keys. */
export async function clearBenchData(redis: Redis, privateServer: boolean, prefix: string): Promise<void> {
  if (privateServer) await redis.flushall('ASYNC');
  else await deleteByPrefix(redis, prefix);
}
