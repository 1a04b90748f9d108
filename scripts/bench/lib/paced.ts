import { loadConfig, type AppConfig } from '../../../src/platform/config/env';

/** The JWT secret of the benches that start roles of the service. */
export const BENCH_SECRET = 'bench-secret-0123456789';

/** A service config for a bench's gateway and driver: its own Redis and key prefix, a free ws port, no rate limit in the way. */
export function gatewayBenchConfig(redisUrl: string, prefix: string): AppConfig {
  return loadConfig({
    REDIS_URL: redisUrl,
    KEY_PREFIX: prefix,
    JWT_SECRET: BENCH_SECRET,
    LOG_LEVEL: 'silent',
    WS_PORT: '0',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  });
}

/**
 * Calls `step(i, rand)` `rate` times a second for `seconds`, each at its due time on a timer, so
 * the load is steady rather than in bursts; `rand` is a seeded generator (the same run twice
 * places the same orders). Resolves with the count and the seconds it took.
 */
export async function paced(
  rate: number,
  seconds: number,
  step: (i: number, rand: () => number) => void,
  seed = 1,
): Promise<{ count: number; seconds: number }> {
  let random = seed;
  const rand = () => (random = (random * 48271) % 2147483647) / 2147483647;
  const start = Date.now();
  const end = start + seconds * 1000;
  let count = 0;
  while (Date.now() < end) {
    const due = start + (count * 1000) / rate;
    if (Date.now() < due) {
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
      continue;
    }
    step(count, rand);
    count++;
  }
  return { count, seconds: (Date.now() - start) / 1000 };
}
