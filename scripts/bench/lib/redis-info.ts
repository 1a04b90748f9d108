import type Redis from 'ioredis';
import type { Cluster } from 'ioredis';

type Client = Redis | Cluster;

/** One `cmdstat_<name>` line of INFO commandstats. */
export interface CommandStat {
  calls: number;
  usec: number;
  usecPerCall: number;
}

/**
 * INFO commandstats as a map by command name. On Redis 7 a script's EVALSHA line counts the whole
 * script, and every redis.call inside it is also counted under its own command, which is how a bench
 * tells what one script call costs and how many commands it issues.
 */
export async function commandStats(redis: Client): Promise<Map<string, CommandStat>> {
  const text = (await redis.info('commandstats')) as string;
  const out = new Map<string, CommandStat>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/.exec(line);
    if (m) out.set(m[1], { calls: Number(m[2]), usec: Number(m[3]), usecPerCall: Number(m[4]) });
  }
  return out;
}

/** Zeroes commandstats and the latency histograms (CONFIG RESETSTAT). */
export async function resetStats(redis: Client): Promise<void> {
  await redis.config('RESETSTAT');
}

export interface LatencyHistogram {
  calls: number;
  /** [upper bound in µs (power of two), calls at or below it] ascending. */
  buckets: [number, number][];
}

/**
 * LATENCY HISTOGRAM <command> (Redis 7+): per-command latency measured inside the server, in
 * power-of-two microsecond buckets; undefined on servers without it.
 */
export async function latencyHistogram(
  redis: Client,
  command: string,
): Promise<LatencyHistogram | undefined> {
  let raw: unknown;
  try {
    raw = await redis.call('LATENCY', 'HISTOGRAM', command);
  } catch {
    return undefined;
  }
  const top = raw as unknown[];
  if (!Array.isArray(top) || top.length < 2) return undefined;
  const body = top[1] as unknown[];
  let calls = 0;
  let buckets: [number, number][] = [];
  for (let i = 0; i + 1 < body.length; i += 2) {
    if (body[i] === 'calls') calls = Number(body[i + 1]);
    if (body[i] === 'histogram_usec') {
      const flat = body[i + 1] as unknown[];
      buckets = [];
      for (let j = 0; j + 1 < flat.length; j += 2) buckets.push([Number(flat[j]), Number(flat[j + 1])]);
    }
  }
  return { calls, buckets };
}

/** Upper bound (µs) of the power-of-two bucket holding the p-th percentile (Redis reports cumulative counts). */
export function histogramPercentile(h: LatencyHistogram, p: number): number {
  if (h.buckets.length === 0) return NaN;
  const total = h.buckets[h.buckets.length - 1][1];
  const target = (p / 100) * total;
  for (const [bound, cumulative] of h.buckets) if (cumulative >= target) return bound;
  return h.buckets[h.buckets.length - 1][0];
}

/**
 * CPU seconds the server's main thread has used (user + sys, INFO cpu). Differences of this over a
 * phase give the server's CPU cost per command, which unlike wall-clock usec is not inflated when
 * other processes on a shared box take the core away.
 */
export async function serverCpuSeconds(redis: Client): Promise<number> {
  const text = (await redis.info('cpu')) as string;
  const get = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  const main = get('used_cpu_user_main_thread') + get('used_cpu_sys_main_thread');
  return Number.isFinite(main) ? main : get('used_cpu_user') + get('used_cpu_sys');
}

/**
 * The baseline every engine bench compares with: a Redis Function that does nothing, called with the
 * engine's own KEYS/ARGV (what FCALL, the network and ioredis cost by themselves). Returns its name.
 */
export async function loadNoopFunction(redis: Client): Promise<string> {
  const name = 'bench_noop';
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', `#!lua name=${name}\nredis.register_function('${name}', function() return 'OK' end)`);
  return name;
}
