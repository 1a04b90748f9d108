import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free TCP port on loopback, chosen by the OS. */
function freePort(): Promise<number> {
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

async function waitForPing(port: number, deadlineMs: number): Promise<void> {
  const { default: Redis } = await import('ioredis');
  const start = Date.now();
  for (;;) {
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await r.connect();
      await r.ping();
      r.disconnect();
      return;
    } catch {
      r.disconnect();
      if (Date.now() - start > deadlineMs) throw new Error(`redis-server on port ${port} did not answer`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}

/** Starts a private redis-server for the whole run, unless REDIS_URL points at one already. */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'exchange-test-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore', detached: false },
  );
  child.on('error', (err) => {
    throw new Error(`cannot start redis-server (${err.message}); install it or set REDIS_URL`);
  });
  await waitForPing(port, 10000);
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  (globalThis as Record<string, unknown>).__TEST_REDIS__ = child;
}
