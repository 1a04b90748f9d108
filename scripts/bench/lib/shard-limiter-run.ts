import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LUA_DIR } from '../../../src/platform/redis/lua-loader';
import type { RedisClient } from '../../../src/platform/redis/connection';
import { deleteByPrefix } from '../../../src/platform/redis/redis-server-process';
import { OrderRateLimiter } from '../../../src/transport/http/middleware/rate-limit';
import { benchContext } from './bench-context';
import { masters, measureCpu } from './master-cpu';

export interface LimiterShape {
  /** Calls per variant and round. */
  calls: number;
  /** Distinct users the calls go round (each its own `{rl:<user>}` tag, so spread over the masters). */
  users: number;
  /** Calls in flight at once, as many connections' requests would be. */
  inFlight: number;
  /** Rounds; each runs every variant once, back to back, so they share the box's load. */
  rounds: number;
}

/** One variant's Redis cost per limiter call, over all masters. */
export interface LimiterVariant {
  name: string;
  usPerCall: number;
  /** Bytes the masters' AOFs grew by per call: under `appendfsync always`, a write there is an fsync. */
  aofBytesPerCall: number;
}

/** The shipped script's line that keeps its writes out of the AOF and off the replicas (its header names it too). */
const REPL_NONE = /^redis\.set_repl\(redis\.REPL_NONE\)$/m;
/** The library of the variants the service does not ship, keyed as their functions are named. */
const LIBRARY = 'bench_rl';

const aofBytes = async (client: RedisClient) => {
  let total = 0;
  for (const node of masters(client).values()) total += Number(/aof_current_size:(\d+)/.exec(await node.info('persistence'))?.[1] ?? 0);
  return total;
};

/**
 * The order rate limiter's Redis cost per request on the bench's cluster (appendfsync always) or its
 * single server (no AOF: the embedded default's path, where only the script's own work differs), one
 * limiter call at a time from `inFlight` callers, against: a function that does nothing (what any
 * extra round trip costs: the floor), the layout before (two expiring counters, replicated:
 * scripts/bench/lib/rate-limit-expiring.lua), and the shipped script with its writes replicated
 * (its `set_repl` line taken out), which tells the share of the AOF's fsync.
 */
export async function limiterRun(url: string, cluster: boolean, shape: LimiterShape): Promise<LimiterVariant[]> {
  const { ctx, prefix } = await benchContext(url, { REDIS_CLUSTER: cluster ? '1' : '0' });
  try {
    const shipped = readFileSync(join(LUA_DIR, 'platform/consumeRateLimit-1.lua'), 'utf8');
    if (!REPL_NONE.test(shipped)) throw new Error('consumeRateLimit-1.lua no longer has its set_repl line: update the limiter mode');
    const before = readFileSync(join(__dirname, 'rate-limit-expiring.lua'), 'utf8');
    const fn = (name: string, body: string) => `redis.register_function('${name}', function(KEYS, ARGV)\n${body}\nend)`;
    const code = [`#!lua name=${LIBRARY}`, fn('bench_rl_noop', "return 'OK'"), fn('bench_rl_before', before), fn('bench_rl_replicated', shipped.replace(REPL_NONE, ''))].join('\n');
    for (const node of masters(ctx.redis).values()) await node.call('FUNCTION', 'LOAD', 'REPLACE', code);
    const limiter = new OrderRateLimiter(ctx.scripts, ctx.keys, 1_000_000, 2_000_000);
    const user = (i: number) => `u${i % shape.users}`;
    const stateKey = (variant: string, i: number) => `${prefix}:v:${variant}:{rl:${user(i)}}`;
    const variants: [string, (i: number) => Promise<unknown>][] = [
      ['no-op function (floor)', (i) => ctx.redis.fcall('bench_rl_noop', 1, stateKey('noop', i))],
      ['before: expiring counters, replicated', (i) =>
        ctx.redis.fcall('bench_rl_before', 2, stateKey('steady', i), stateKey('burst', i), 1_000_000, 1, 1_000_000, 10)],
      ['shipped script, replicated', (i) => ctx.redis.fcall('bench_rl_replicated', 1, stateKey('repl', i), 1_000_000, 1000, 1_000_000, 10_000, 60_000)],
      ['shipped (not replicated)', (i) => limiter.consume(user(i))],
    ];
    const totals = new Map(variants.map(([name]) => [name, { us: 0, calls: 0, aof: 0 }]));
    for (let round = 0; round < shape.rounds; round++) {
      for (const [name, call] of variants) {
        let next = round * shape.calls;
        const end = next + shape.calls;
        const aofBefore = await aofBytes(ctx.redis);
        const m = await measureCpu(
          ctx.redis,
          () => Promise.all(Array.from({ length: shape.inFlight }, async () => {
            while (next < end) await call(next++);
          })),
          () => shape.calls,
        );
        const t = totals.get(name)!;
        t.us += m.allCpuUs * shape.calls;
        t.calls += shape.calls;
        t.aof += (await aofBytes(ctx.redis)) - aofBefore;
        // a variant's state goes before the next one runs: the expiring counters' DELs would land in its figures
        await deleteByPrefix(ctx.redis, `${prefix}:v`);
        await deleteByPrefix(ctx.redis, `${prefix}:rl`);
      }
    }
    return variants.map(([name]) => {
      const t = totals.get(name)!;
      return { name, usPerCall: t.us / t.calls, aofBytesPerCall: t.aof / t.calls };
    });
  } finally {
    for (const node of masters(ctx.redis).values()) {
      await node.call('FUNCTION', 'DELETE', LIBRARY).catch(() => undefined);
      await node.flushall();
    }
    await ctx.close();
  }
}
