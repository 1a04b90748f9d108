import fc from 'fast-check';
import { rankMember } from '../../src/platform/redis/ranking';
import { idsByShard, SHARD_ID_SPAN, shardIdBase, shardOfId } from '../../src/domain/shard-ids';

/**
 * Ranking members (src/platform/redis/ranking.ts): a sorted set reads members of equal score in
 * byte order, which must be numeric id order for counter ids (up to 12 digits, padded as before)
 * and several shards' random account ids (13 to 16 digits) alike.
 */
const counterId = fc.integer({ min: 1, max: 999_999_999_999 });
const randomId = fc.tuple(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 1, max: SHARD_ID_SPAN - 1 })).map(([s, r]) => shardIdBase(s) + r);
const anyId = fc.oneof(counterId, randomId);
const bytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('rankMember', () => {
  it('orders members as their ids are ordered as numbers', () => {
    fc.assert(
      fc.property(fc.uniqueArray(anyId, { minLength: 2, maxLength: 30 }), (ids) => {
        const byMember = [...ids].sort((x, y) => bytes(rankMember(x), rankMember(y)));
        expect(byMember).toEqual([...ids].sort((x, y) => x - y));
      }),
    );
  });

  it('keeps the 12-digit members of a store from before random ids', () => {
    fc.assert(fc.property(counterId, (id) => expect(rankMember(id)).toBe(String(id).padStart(12, '0'))));
  });
});

describe('idsByShard', () => {
  it('groups ids by the shard they name, each group in the ids\' order, losing none', () => {
    fc.assert(
      fc.property(fc.array(anyId.map(String), { maxLength: 30 }), (ids) => {
        const groups = idsByShard(ids);
        for (const [shard, group] of groups) {
          expect(group).toEqual(ids.filter((id) => shardOfId(id) === shard));
        }
        expect([...groups.values()].flat().sort()).toEqual([...ids].sort());
      }),
    );
  });
});
