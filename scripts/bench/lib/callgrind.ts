import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis, { type ChainableCommander } from 'ioredis';

/**
 * A private redis-server under `valgrind --tool=callgrind --toggle-collect=fcallCommand`: only what
 * runs inside FCALL is counted (the Lua and the commands it calls), deterministic whatever else the
 * box runs. The engine profiles (profile:futures, profile:spot) measure each phase with `phase`.
 */
export interface CallgrindRedis {
  url: string;
  /** Where the dumps stay, for callgrind_annotate. */
  dir: string;
  /**
   * Counts `run` (which places `orders` orders) alone: counters and commandstats zeroed before,
   * dumped after; prints instructions and commands per order, and answers the instructions.
   */
  phase(redis: Redis, name: string, orders: number, run: () => Promise<void>, note?: string): Promise<number>;
  stop(): void;
}

/** Env: PROFILE_DIR (a temp dir), PROFILE_REDIS_SERVER (the binary; one with symbols gives callgrind_annotate a per-function split). */
export async function startCallgrindRedis(tag: string): Promise<CallgrindRedis> {
  const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), `${tag}-`));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child: ChildProcess = spawn('valgrind', [
    '--tool=callgrind', '--toggle-collect=fcallCommand', '--compress-strings=no', `--callgrind-out-file=${dir}/callgrind.out.%p`,
    process.env.PROFILE_REDIS_SERVER ?? 'redis-server', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir,
  ], { stdio: 'ignore' });
  let stopped = false;
  child.on('exit', (code) => {
    if (!stopped) console.error(`valgrind exited early (${code}): is valgrind installed?`);
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitForRedis(url);
  const pid = String(child.pid);
  return {
    url,
    dir,
    async phase(redis, name, orders, run, note = '') {
      await redis.config('RESETSTAT');
      execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
      await run();
      const calls = await commandCalls(redis);
      const commands = [...calls.values()].reduce((a, b) => a + b, 0);
      execFileSync('callgrind_control', ['-d', name, pid], { stdio: 'ignore' });
      const total = dumpTotal(dir, name);
      console.log(
        `${name}: ${Math.round(total / orders).toLocaleString('en-US')} instructions per order, ` +
          `${(commands / orders).toFixed(2)} commands per order${note}`,
      );
      const perOrder = [...calls].sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${(n / orders).toFixed(2)}`);
      console.log(`  ${perOrder.join(', ')}`);
      return total / orders;
    },
    stop() {
      stopped = true;
      child.kill('SIGTERM');
    },
  };
}

/**
 * Places `items`, `group` per call, through `queue` in pipelines of `calls` calls, one pipeline at a
 * time; throws on an error reply or an order not answered OK (a floor script answers a number).
 */
export async function placeAll<T>(
  redis: Redis,
  items: T[],
  group: number,
  queue: (p: ChainableCommander, orders: T[]) => void,
  calls = 50,
): Promise<void> {
  for (let i = 0; i < items.length; i += group * calls) {
    const p = redis.pipeline();
    for (let j = i; j < Math.min(items.length, i + group * calls); j += group) queue(p, items.slice(j, j + group));
    for (const [err, r] of (await p.exec()) ?? []) {
      const ok = typeof r === 'number' || (Array.isArray(r) && r.every((x) => Array.isArray(x) && x[0] === 'OK'));
      if (err || !ok) throw new Error(`order failed: ${String(err ?? JSON.stringify(r))}`);
    }
  }
}

async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

async function waitForRedis(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      await r.ping();
      r.disconnect();
      return;
    } catch {
      r.disconnect();
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }
  throw new Error('redis-server under callgrind did not answer');
}

/** Instructions in the newest dump whose name contains `tag`. */
function dumpTotal(dir: string, tag: string): number {
  const dumps = readdirSync(dir).filter((f) => /\.\d+$/.test(f)).map((f) => join(dir, f)).map((f) => ({ f, text: readFileSync(f, 'utf8') }));
  const file = dumps.filter((d) => d.text.includes(`Trigger: dump ${tag}\n`)).pop();
  if (!file) throw new Error(`no callgrind dump for ${tag} in ${dir}`);
  const m = /^(?:summary|totals): (\d+)/m.exec(file.text);
  if (!m) throw new Error(`no totals in ${file.f}`);
  return Number(m[1]);
}

/** Calls per command since the last RESETSTAT, FCALL and INFO left out. */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const out = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (m[1] !== 'fcall' && m[1] !== 'info') out.set(m[1], Number(m[2]));
  return out;
}
