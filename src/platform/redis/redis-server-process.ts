import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis, { Cluster } from 'ioredis';
import { scanKeys } from './scan-keys';

/**
 * Starting a redis-server of our own: `npm start` when none is running, the test suite's private
 * server, and the benchmarks' private server all go through here.
 */

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

/** Whether a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs: number): Promise<boolean> {
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

export interface RedisServerOptions {
  port?: number;
  /** Data directory; a fresh temp dir (removed on stop) when omitted. */
  dir?: string;
  /** AOF on, fsync every second: for data that must survive a restart. */
  appendOnly?: boolean;
  extraArgs?: string[];
  readyTimeoutMs?: number;
  /** The server binary: `redis-server` on the PATH when omitted (a profiling build elsewhere). */
  binary?: string;
  /**
   * Its own process group, not held by this process's event loop: a terminal's Ctrl-C then reaches
   * only us, and we stop it last (`npm start`), or it outlives us after a SIGKILL.
   */
  detached?: boolean;
}

export interface RedisServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServerProcess> {
  const port = opts.port ?? (await freePort());
  const tempDir = opts.dir ? undefined : mkdtempSync(join(tmpdir(), 'exchange-redis-'));
  const dir = opts.dir ?? (tempDir as string);
  const persistence = opts.appendOnly
    ? ['--appendonly', 'yes', '--appendfsync', 'everysec']
    : ['--save', '', '--appendonly', 'no'];
  const child = spawn(
    opts.binary ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...persistence, ...(opts.extraArgs ?? [])],
    { stdio: 'ignore', detached: opts.detached ?? false },
  );
  if (opts.detached) child.unref();
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 10_000);
  while (!(await redisAnswers(url, 500))) {
    if (spawnError) throw new Error(`cannot start redis-server (${spawnError.message})`);
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not answer`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    async stop() {
      await stopChild(child);
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
export function stopChild(child: ChildProcess, graceMs = 3000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, graceMs).unref();
  });
}

/**
 * Removes every key under `prefix:` (a shared server is not ours to FLUSHALL). On a cluster each
 * master is scanned, and keys go one per UNLINK: keys of different slots never share a command.
 */
export async function deleteByPrefix(redis: Redis | Cluster, prefix: string): Promise<void> {
  const cluster = redis instanceof Cluster;
  for await (const { node, keys } of scanKeys(redis, `${prefix}:*`)) {
    if (!cluster) await node.unlink(...keys);
    else await Promise.all(keys.map((k) => node.unlink(k)));
  }
}
