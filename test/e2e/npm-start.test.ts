import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

function run(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [TSX, 'src/bin/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, output: () => out, exited };
}

async function waitFor(pred: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('npm start (src/bin/start.ts)', () => {
  it('starts every role against a running Redis and answers the pairs listing', async () => {
    const prefix = `st${randomBytes(3).toString('hex')}`;
    const p = run({ ...process.env, KEY_PREFIX: prefix, PORT: '0', WS_PORT: '0', JWT_SECRET: 'e2e-secret-0123456789' });
    try {
      await waitFor(() => /worker ready/.test(p.output()) && /api ready at/.test(p.output()), 30_000); // generous: the machine is shared; startup time is measured, not asserted
      const port = Number(/api ready at http:\/\/0\.0\.0\.0:(\d+)/.exec(p.output())?.[1]);
      expect(p.output()).toMatch(/ws ready at ws:\/\/0\.0\.0\.0:\d+\/ws/);
      const res = await fetch(`http://127.0.0.1:${port}/api/currencies/pairs`);
      expect(res.status).toBe(200);
      const pairs = (await res.json()) as { currencyPairCode: string }[];
      expect(pairs.map((x) => x.currencyPairCode)).toEqual(expect.arrayContaining(['BTC_USDT', 'ETH_USDT']));
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
    } finally {
      p.child.kill('SIGKILL');
      const r = new Redis(process.env.REDIS_URL as string);
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.unlink(...keys);
      r.disconnect();
    }
  });

  it('without Redis and without redis-server it exits at once naming both ways to get one', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'no-redis-path-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const p = run({ ...process.env, PATH: bin, REDIS_URL: 'redis://127.0.0.1:1', JWT_SECRET: 'e2e-secret-0123456789' });
    const code = await p.exited;
    expect(code).not.toBe(0);
    expect(p.output()).toMatch(/Install Redis/);
    expect(p.output()).toMatch(/docker compose up/);
  });
});
