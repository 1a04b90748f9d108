import type { RedisClient } from './connection';

/**
 * Rankings kept as sorted sets read lowest score first (a "higher is better" value is stored
 * negated) with ids padded to 12 digits as members, so equal scores read in id order
 * (lua/includes/futures/accountRank.lua and lua/copy/refreshCopyBoard write them so).
 */
export const rankMember = (id: string | number) => String(id).padStart(12, '0');
const idOf = (member: string) => String(Number(member));

/** The ids at ranks [offset, offset + count), and how many are ranked. */
export async function rankPage(redis: RedisClient, key: string, offset: number, count: number): Promise<{ ids: string[]; total: number }> {
  const [members, total] = await Promise.all([redis.zrange(key, String(offset), String(offset + count - 1)), redis.zcard(key)]);
  return { ids: members.map(idOf), total };
}

/** The ids whose score is within [min, max] (inclusive), with their scores. */
export async function rankWithin(redis: RedisClient, key: string, min: number, max: number): Promise<Map<string, number>> {
  const bound = (v: number) => (v === Infinity ? '+inf' : v === -Infinity ? '-inf' : String(v));
  const flat = await redis.zrangebyscore(key, bound(min), bound(max), 'WITHSCORES');
  const out = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 2) out.set(idOf(flat[i]), Number(flat[i + 1]));
  return out;
}

/** Scores of `ids` (null for one not ranked). */
export async function rankScores(redis: RedisClient, key: string, ids: string[]): Promise<(number | null)[]> {
  if (ids.length === 0) return [];
  const s = (await redis.zmscore(key, ...ids.map(rankMember))) as (string | null)[];
  return s.map((v) => (v === null ? null : Number(v)));
}

/** Places (1-based) of `ids` (0 for one not ranked), one round trip. */
export async function rankPlaces(redis: RedisClient, key: string, ids: string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const p = redis.pipeline();
  for (const id of ids) p.zrank(key, rankMember(id));
  return ((await p.exec()) ?? []).map(([err, v]) => {
    if (err) throw err;
    return v === null ? 0 : Number(v) + 1;
  });
}
