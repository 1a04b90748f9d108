import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';

/** A Redis a benchmark may use: its own private server, or the one REDIS_URL names. */
export interface BenchRedis {
  url: string;
  /** True when the server was started here, so the bench may FLUSHALL or reconfigure it freely. */
  privateServer: boolean;
  stop(): Promise<void>;
}

/** A free TCP port on loopback, chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitForPing(url: string, deadlineMs: number): Promise<void> {
  const start = Date.now();
  for (;;) {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined); // refused connections are expected until the server is up
    try {
      await r.connect();
      await r.ping();
      r.disconnect();
      return;
    } catch {
      r.disconnect();
      if (Date.now() - start > deadlineMs) throw new Error(`redis-server at ${url} did not answer`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
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
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'exchange-bench-redis-'));
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      ...(opts.extraArgs ?? []),
    ],
    { stdio: 'ignore' },
  );
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err) =>
      reject(new Error(`cannot start redis-server (${err.message}); install it or set REDIS_URL`)),
    ),
  );
  spawnError.catch(() => undefined);
  children.add(child);
  installExitHook();
  const url = `redis://127.0.0.1:${port}`;
  await Promise.race([waitForPing(url, 10_000), spawnError]);
  return {
    url,
    privateServer: true,
    async stop() {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 3000).unref();
      });
      children.delete(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Removes every key under `prefix:` (for a shared REDIS_URL, where FLUSHALL is not ours to do). */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
}
