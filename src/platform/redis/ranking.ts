import type { RedisClient } from './connection';

/**
 * Rankings kept as sorted sets read lowest score first (a "higher is better" value is stored
 * negated) with padded ids as members, so equal scores read in numeric id order
 * (lua/includes/futures/accountRank.lua fRankMember writes them so, for lua/copy/refreshCopyBoard
 * too): an id of up to 12 digits padded to 12 (the members of every store before random ids), a
 * longer one (several shards' random account ids, src/domain/shard-ids.ts) as ':' and 16 digits;
 * ':' sorts after every digit, and every longer id is the larger number.
 */
export const rankMember = (id: string | number): string => {
  const s = String(id);
  return s.length <= 12 ? s.padStart(12, '0') : `:${s.padStart(16, '0')}`;
};
const idOf = (member: string) => String(Number(member.replace(':', '')));

const bound = (v: number) => (v === Infinity ? '+inf' : v === -Infinity ? '-inf' : String(v));

/**
 * The ids at ranks [offset, offset + count) among those scored within [min, max] (all by default),
 * and how many those are: O(log n + count), the order that of the whole ranking.
 */
export async function rankPage(
  redis: RedisClient,
  key: string,
  offset: number,
  count: number,
  min = -Infinity,
  max = Infinity,
): Promise<{ ids: string[]; total: number }> {
  if (min === -Infinity && max === Infinity) {
    const [members, total] = await Promise.all([redis.zrange(key, String(offset), String(offset + count - 1)), redis.zcard(key)]);
    return { ids: members.map(idOf), total };
  }
  const [members, total] = await Promise.all([
    redis.zrange(key, bound(min), bound(max), 'BYSCORE', 'LIMIT', offset, count),
    redis.zcount(key, bound(min), bound(max)),
  ]);
  return { ids: members.map(idOf), total };
}

/** The ids whose score is within [min, max] (inclusive), with their scores. */
export async function rankWithin(redis: RedisClient, key: string, min: number, max: number): Promise<Map<string, number>> {
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
