import type { RedisClient } from '../../src/platform/redis/connection';

/**
 * Moves every key under `prefix` `ms` closer to its expiry, as if that much time had passed on the
 * Redis: a key with less time left is gone, the rest keep the remainder. Tests "after a record's
 * lifetime" without waiting it out.
 */
export async function ageKeys(redis: RedisClient, prefix: string, ms: number): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const left = await redis.pttl(key);
      if (left < 0) continue; // no expiry (or gone meanwhile)
      if (left <= ms) await redis.del(key);
      else await redis.pexpire(key, left - ms);
    }
  } while (cursor !== '0');
}
