import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { redisAnswers, startRedisServer } from '../platform/redis/redis-server-process';
import { StartupError } from './startup-error';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
/** Where `npm start` notes the redis-server it started, so a later start finds it after a SIGKILL. */
const PID_FILE = 'redis-server.json';

/** The Redis `npm start` writes into, and whose it is. */
export interface RedisInUse {
  url: string;
  /** Started by `npm start` under DATA_DIR (now or by an earlier start that did not stop it): stopped on shutdown. */
  own: boolean;
  /** One sentence for the log: whose Redis this is. */
  whose: string;
  /** Stops it if it is our own (SIGTERM: Redis writes its AOF and exits), at most `graceMs`; else nothing. */
  stop(graceMs?: number): Promise<void>;
  /** The same, synchronously and without waiting: for an exit that cannot wait (a second Ctrl-C). */
  stopNow(): void;
}

interface PidNote {
  pid: number;
  port: number;
}

function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Running: signalable and not a zombie (a server we started and then lost the parent of stays one until reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true; // no /proc: signalable is all we know
  }
}

/** The pid is a redis-server still (not a pid the system has since given to another program). */
function isRedisServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server');
  } catch {
    return alive(pid); // no /proc (macOS): trust the pid, the port check below still applies
  }
}

function readNote(dataDir: string): PidNote | undefined {
  try {
    const note = JSON.parse(readFileSync(join(dataDir, PID_FILE), 'utf8')) as PidNote;
    return Number.isInteger(note.pid) && Number.isInteger(note.port) ? note : undefined;
  } catch {
    return undefined;
  }
}

function ownRedis(url: string, pid: number, dataDir: string, whose: string): RedisInUse {
  let stopped = false;
  const forget = () => {
    stopped = true;
    rmSync(join(dataDir, PID_FILE), { force: true });
  };
  const signal = (sig: NodeJS.Signals) => {
    if (stopped) return; // its pid may belong to another process by now
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  return {
    url,
    own: true,
    whose,
    async stop(graceMs = 2000) {
      signal('SIGTERM');
      const deadline = Date.now() + graceMs;
      while (alive(pid) && Date.now() < deadline) await sleep(25);
      if (alive(pid)) signal('SIGKILL');
      forget();
    },
    stopNow() {
      signal('SIGTERM');
      forget();
    },
  };
}

/**
 * The Redis `npm start` uses: the one it started earlier under `dataDir` if that still runs (found
 * by its pid file, so a SIGKILLed start leaves no orphan that the next start clashes with); else
 * the one answering at REDIS_URL; else, on a local address with redis-server installed, a new one
 * with AOF on under `dataDir`, in its own process group. Otherwise a StartupError naming the ways
 * to get one.
 */
export async function ensureRedis(url: string, dataDir: string): Promise<RedisInUse> {
  const u = new URL(url);
  const local = LOCAL_HOSTS.has(u.hostname);
  const port = Number(u.port || 6379);
  const note = local ? readNote(dataDir) : undefined;
  if (note && note.port === port && isRedisServer(note.pid) && (await redisAnswers(url, 1500))) {
    return ownRedis(
      url,
      note.pid,
      dataDir,
      `its own Redis at ${url} (pid ${note.pid}, data in ${dataDir}), left running by an earlier npm start`,
    );
  }
  if (await redisAnswers(url, 1500)) {
    return {
      url,
      own: false,
      whose: `the Redis at ${url} (REDIS_URL; not started by npm start, left running on exit)`,
      stop: async () => undefined,
      stopNow: () => undefined,
    };
  }
  if (!local || !hasRedisServer()) {
    throw new StartupError(
      `No Redis answers at ${url}. Install Redis (e.g. \`apt-get install redis-server\`, then run \`npm start\` ` +
        'again and it is started for you), or start one in Docker: `docker run -d -p 127.0.0.1:6379:6379 redis:7 ' +
        'redis-server --appendonly yes` (the whole stack in containers: `docker compose up`, docs/operations.md).',
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const server = await startRedisServer({ port, dir: dataDir, appendOnly: true, detached: true }).catch(
    (err: Error) => {
      throw new StartupError(`could not start redis-server on port ${port} under ${dataDir}: ${err.message}`);
    },
  );
  const pid = server.child.pid as number;
  writeFileSync(join(dataDir, PID_FILE), JSON.stringify({ pid, port } satisfies PidNote));
  return ownRedis(
    url,
    pid,
    dataDir,
    `its own Redis at ${url} (pid ${pid}, AOF on, data in ${dataDir}), started now and stopped on exit`,
  );
}
