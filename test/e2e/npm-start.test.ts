import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import jwt from 'jsonwebtoken';
import { Keys } from '../../src/platform/redis/keys';
import { freePort, startRedisServer } from '../../src/platform/redis/redis-server-process';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

function watch(child: ReturnType<typeof spawn>) {
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, output: () => out + err, stderr: () => err, exited };
}

function run(env: NodeJS.ProcessEnv) {
  return watch(
    spawn(process.execPath, [TSX, 'src/bin/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

/** One node process (tsx as a loader, no tsx parent), so a SIGKILL kills exactly `npm start`'s process. */
function runBare(env: NodeJS.ProcessEnv) {
  return watch(
    spawn(process.execPath, ['--import', 'tsx', 'src/bin/start.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** `npm start` as a terminal runs it: its own process group, which Ctrl-C signals as a whole. */
function runNpmStart(env: NodeJS.ProcessEnv) {
  return watch(
    spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

async function waitFor(pred: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Running, not a zombie: a Redis whose parent was killed is reaped by whoever adopts it, or stays a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
}

/** Whether nothing listens on `port` any more: we can listen there ourselves. */
function portFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createServer();
    s.once('error', () => res(false));
    s.listen(port, '0.0.0.0', () => s.close(() => res(true)));
  });
}

/** An environment whose Redis is one `npm start` starts itself, on a free port under a data dir of its own. */
async function ownRedisEnv(
  extra: NodeJS.ProcessEnv = {},
): Promise<{ env: NodeJS.ProcessEnv; dataDir: string; redisPort: number }> {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'npm-start-own-')), 'data');
  const redisPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DEMO;
  return {
    env: {
      ...env,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      DATA_DIR: dataDir,
      JWT_SECRET: 'e2e-secret-0123456789',
      PORT: String(await freePort()),
      WS_PORT: String(await freePort()),
      ...extra,
    },
    dataDir,
    redisPort,
  };
}

const pidNote = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, 'redis-server.json'), 'utf8')) as { pid: number; port: number };

describe('npm start (src/bin/start.ts)', () => {
  it('starts every role against a running Redis and answers the pairs listing', async () => {
    const prefix = `st${randomBytes(3).toString('hex')}`;
    const p = run({
      ...process.env,
      KEY_PREFIX: prefix,
      PORT: '0',
      WS_PORT: '0',
      JWT_SECRET: 'e2e-secret-0123456789',
    });
    try {
      await waitFor(() => /worker ready/.test(p.output()) && /api ready at/.test(p.output()), 30_000); // generous: the machine is shared; startup time is measured, not asserted
      const port = Number(/api ready at http:\/\/0\.0\.0\.0:(\d+)/.exec(p.output())?.[1]);
      expect(p.output()).toContain(
        `writing into the Redis at ${process.env.REDIS_URL} (REDIS_URL; not started by npm start`,
      );
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
    const p = run({
      ...process.env,
      PATH: bin,
      REDIS_URL: 'redis://127.0.0.1:1',
      JWT_SECRET: 'e2e-secret-0123456789',
    });
    const code = await p.exited;
    expect(code).not.toBe(0);
    expect(p.stderr().trim().split('\n')).toHaveLength(1);
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
    const r = spawnSync(process.execPath, [TSX, 'scripts/token.ts', '--user', user], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };
  /** Starts again and asks for balances with `bearerToken` and with a token of another secret. */
  async function balancesStatus(
    env: NodeJS.ProcessEnv,
    bearerToken: string,
  ): Promise<{ statuses: number[]; output: string }> {
    const p = run(env);
    try {
      await waitFor(() => /api ready at/.test(p.output()), 30_000);
      const port = Number(/api ready at http:\/\/0\.0\.0\.0:(\d+)/.exec(p.output())?.[1]);
      const other = jwt.sign({ sub: 'alice' }, randomBytes(32).toString('hex'), { algorithm: 'HS256', expiresIn: '1h' });
      const statuses = [];
      for (const t of [bearerToken, other]) {
        const res = await fetch(`http://127.0.0.1:${port}/api/wallet/balances`, {
          headers: { Authorization: `Bearer ${t}` },
        });
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

describe('npm start stops cleanly (issue 26 findings 1, 2 and 8)', () => {
  it('on Ctrl-C with DEMO=1: exits within 5 s, frees its ports, stops its own Redis, and the demo leaves no order on any book', async () => {
    const { env, dataDir, redisPort } = await ownRedisEnv({ DEMO: '1' });
    const p = runNpmStart(env);
    let ownPid = 0;
    try {
      await waitFor(() => /demo: \d+ bots on/.test(p.output()), 60_000).catch((err: Error) => {
        throw new Error(`${err.message}: ${p.output()}`);
      });
      expect(p.output()).toMatch(/writing into its own Redis at redis:\/\/127\.0\.0\.1:\d+ .*started now/);
      ownPid = pidNote(dataDir).pid;
      await waitFor(() => /limit orders placed/.test(p.output()), 30_000); // the demo's first summary: it is trading
      const signalled = Date.now();
      process.kill(-(p.child.pid as number), 'SIGINT'); // the terminal signals the whole foreground group
      await p.exited;
      const took = Date.now() - signalled;
      expect(took).toBeLessThan(5000);
      expect(p.output()).toMatch(/demo: stopped; every order it placed is cancelled or closed/);
      expect(p.output()).not.toMatch(/ENGINE_UNAVAILABLE/);
      expect(await portFree(Number(env.PORT))).toBe(true);
      expect(await portFree(Number(env.WS_PORT))).toBe(true);
      expect(await portFree(redisPort)).toBe(true);
      expect(alive(ownPid)).toBe(false);
      expect(existsSync(join(dataDir, 'redis-server.json'))).toBe(false);
    } finally {
      try {
        process.kill(-(p.child.pid as number), 'SIGKILL');
      } catch {
        // the group is gone
      }
      if (ownPid && alive(ownPid)) process.kill(ownPid, 'SIGKILL');
    }
    // what the demo left, read from the AOF the own Redis wrote: no order rests on any book
    const redis = await startRedisServer({ port: redisPort, dir: dataDir, appendOnly: true });
    const r = new Redis(redis.url);
    try {
      const keys = new Keys('ex');
      for (const [kind, pair] of [
        ['spot', 'BTC_USDT'],
        ['spot', 'ETH_USDT'],
        ['spot', 'BTC_USDT.TRC20'],
        ['futures', 'BTC_USDT'],
        ['futures', 'ETH_USDT'],
      ] as const) {
        expect([
          kind,
          pair,
          await r.zcard(keys.book(kind, pair, 'bids')),
          await r.zcard(keys.book(kind, pair, 'asks')),
        ]).toEqual([kind, pair, 0, 0]);
      }
      // and no futures order or position stays open in any demo bot's account
      for (const pair of ['BTC_USDT', 'ETH_USDT']) {
        for (const role of ['maker1', 'maker2', 'taker']) {
          const accounts = await r.smembers(keys.userFuturesAccounts(`demo-futures-${pair}-${role}`));
          expect(accounts.length).toBeGreaterThan(0);
          for (const id of accounts)
            expect([role, pair, await r.zcard(keys.futuresAccountOpenOrders(id))]).toEqual([role, pair, 0]);
        }
      }
    } finally {
      r.disconnect();
      await redis.stop();
    }
  }, 120_000);

  it('after a SIGKILL its Redis lives on, and the next start finds it under DATA_DIR and uses it', async () => {
    const { env, dataDir, redisPort } = await ownRedisEnv({ ROLES: 'api' });
    const first = runBare(env);
    let ownPid = 0;
    try {
      await waitFor(() => /api ready at/.test(first.output()), 30_000);
      ownPid = pidNote(dataDir).pid;
      first.child.kill('SIGKILL');
      await first.exited;
      expect(alive(ownPid)).toBe(true);
      const again = run(env);
      await waitFor(() => /api ready at/.test(again.output()) || /npm start:/.test(again.output()), 30_000);
      expect(again.output()).toContain(`its own Redis at redis://127.0.0.1:${redisPort} (pid ${ownPid}`);
      expect(again.output()).toMatch(/left running by an earlier npm start/);
      expect(pidNote(dataDir).pid).toBe(ownPid); // no second server
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
      expect(alive(ownPid)).toBe(false);
    } finally {
      first.child.kill('SIGKILL');
      if (ownPid && alive(ownPid)) process.kill(ownPid, 'SIGKILL');
    }
  });
});

describe('npm start: a reason not to start is one line, and nothing stays running (issue 26 finding 2)', () => {
  const oneLine = (stderr: string) => stderr.trim().split('\n');
  /** Another program on `port` while `npm start` with `env` starts: its result. */
  async function startWithPortTaken(port: string | undefined, env: NodeJS.ProcessEnv) {
    const blocker = createServer();
    await new Promise<void>((res) => blocker.listen(Number(port), '0.0.0.0', () => res()));
    try {
      const p = run(env);
      return { code: await p.exited, stderr: p.stderr(), output: p.output() };
    } finally {
      blocker.close();
    }
  }

  it('a port in use', async () => {
    const { env, dataDir, redisPort } = await ownRedisEnv({ ROLES: 'api,ws' });
    const p = await startWithPortTaken(env.PORT, env);
    expect(p.code).toBe(1);
    expect(oneLine(p.stderr)).toEqual([
      `npm start: port ${env.PORT} (PORT) is in use: another program (an earlier npm start?) listens there; stop it, or set PORT to a free port`,
    ]);
    expect(p.output).not.toMatch(/\n\s+at /); // no stack trace
    expect(await portFree(redisPort)).toBe(true); // the Redis it had started is stopped again
    expect(existsSync(join(dataDir, 'redis-server.json'))).toBe(false);
    expect(await portFree(Number(env.WS_PORT))).toBe(true);
  });

  it('the websocket port in use', async () => {
    const { env } = await ownRedisEnv({
      ROLES: 'ws',
      REDIS_URL: process.env.REDIS_URL,
      KEY_PREFIX: `st${randomBytes(3).toString('hex')}`,
    });
    const p = await startWithPortTaken(env.WS_PORT, env);
    expect(p.code).toBe(1);
    expect(oneLine(p.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^npm start: port ${env.WS_PORT} \\(WS_PORT\\) is in use`)),
    ]);
  });

  it("a Redis holding another deployment's keys under the prefix", async () => {
    const prefix = `st${randomBytes(3).toString('hex')}`;
    const r = new Redis(process.env.REDIS_URL as string);
    await r.set(new Keys(prefix).deployment(), 'another-deployment');
    try {
      const { env } = await ownRedisEnv({
        ROLES: 'api',
        REDIS_URL: process.env.REDIS_URL,
        KEY_PREFIX: prefix,
      });
      const p = run(env);
      expect(await p.exited).toBe(1);
      const lines = oneLine(p.stderr());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`holds another deployment's keys under KEY_PREFIX=${prefix}`));
      expect(p.output()).toMatch(/writing into the Redis at .* not started by npm start/); // whose Redis, said first
      expect(await portFree(Number(env.PORT))).toBe(true);
    } finally {
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.unlink(...keys);
      r.disconnect();
    }
  });

  it('a Redis that does not answer at a remote REDIS_URL', async () => {
    const { env } = await ownRedisEnv({ ROLES: 'api', REDIS_URL: 'redis://192.0.2.1:6379' }); // TEST-NET-1: never answers
    const p = run(env);
    expect(await p.exited).toBe(1);
    const lines = oneLine(p.stderr());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm start: No Redis answers at redis:\/\/192\.0\.2\.1:6379/);
  });
});
