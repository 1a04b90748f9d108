import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import jwt from 'jsonwebtoken';

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

describe('npm start without JWT_SECRET or JWT_PUBLIC_KEY', () => {
  /** The environment of a fresh checkout: no key at all, a data dir of its own. */
  function keyless(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, ROLES: 'api', PORT: '0' };
    delete env.JWT_SECRET;
    delete env.JWT_PUBLIC_KEY;
    delete env.NODE_ENV;
    return { ...env, ...extra };
  }
  const token = (env: NodeJS.ProcessEnv, user: string) => {
    const r = spawnSync(process.execPath, [TSX, 'scripts/token.ts', '--user', user], { cwd: ROOT, env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };
  /** Starts again and asks for balances with `bearerToken` and with a token of another secret. */
  async function balancesStatus(env: NodeJS.ProcessEnv, bearerToken: string): Promise<{ statuses: number[]; output: string }> {
    const p = run(env);
    try {
      await waitFor(() => /api ready at/.test(p.output()), 30_000);
      const port = Number(/api ready at http:\/\/0\.0\.0\.0:(\d+)/.exec(p.output())?.[1]);
      const other = jwt.sign({ sub: 'alice' }, randomBytes(32).toString('hex'), { algorithm: 'HS256', expiresIn: '1h' });
      const statuses = [];
      for (const t of [bearerToken, other]) {
        const res = await fetch(`http://127.0.0.1:${port}/api/wallet/balances`, { headers: { Authorization: `Bearer ${t}` } });
        statuses.push(res.status);
      }
      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      return { statuses, output: p.output() };
    } finally {
      p.child.kill('SIGKILL');
    }
  }

  it('makes a random secret once under DATA_DIR, says where, reuses it, and npm run token signs with it', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'npm-start-data-')), 'data');
    const prefix = `st${randomBytes(3).toString('hex')}`;
    const env = keyless({ DATA_DIR: dataDir, KEY_PREFIX: prefix });
    const file = join(dataDir, 'jwt-secret');
    const first = run(env);
    let firstOutput = '';
    try {
      await waitFor(() => /api ready at/.test(first.output()), 30_000);
      firstOutput = first.output();
      first.child.kill('SIGTERM');
      await first.exited;
    } finally {
      first.child.kill('SIGKILL');
    }
    const secret = readFileSync(file, 'utf8').trim();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(firstOutput).toContain(file);
    expect(firstOutput).toMatch(/made now/);
    expect(firstOutput).not.toContain(secret);

    // npm run token reads the same file; a second start reuses it, so that token is accepted
    const aliceToken = token(env, 'alice');
    expect((jwt.verify(aliceToken, secret) as jwt.JwtPayload).sub).toBe('alice');
    const second = await balancesStatus(env, aliceToken);
    expect(second.statuses).toEqual([200, 401]);
    expect(second.output).toContain(file);
    expect(second.output).toMatch(/made earlier/);
    expect(readFileSync(file, 'utf8').trim()).toBe(secret);
    const r = new Redis(process.env.REDIS_URL as string);
    const keys = await r.keys(`${prefix}:*`);
    if (keys.length) await r.unlink(...keys);
    r.disconnect();
  });

  it('with NODE_ENV=production exits non-zero naming JWT_SECRET and JWT_PUBLIC_KEY, and writes no secret', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'npm-start-data-')), 'data');
    const p = run(keyless({ NODE_ENV: 'production', DATA_DIR: dataDir }));
    const code = await p.exited;
    expect(code).not.toBe(0);
    expect(p.output()).toMatch(/JWT_SECRET/);
    expect(p.output()).toMatch(/JWT_PUBLIC_KEY/);
    expect(() => statSync(join(dataDir, 'jwt-secret'))).toThrow();
  });
});
