import { Keys } from '../../src/platform/redis/keys';
import { RedisClock } from '../../src/platform/redis/redis-clock';
import { keyedOperation, operationFor, withKeyedOperations as keyedBy } from '../../src/platform/redis/operation';

/** The hash tag of a key: `e0` of `ex:{e0}:op:…`. */
const hashTagOf = (key: string) => /\{([^}]+)\}/.exec(key)?.[1] ?? '';

/** A keyed request of `userId` under `key`, the same request (fingerprint) unless said otherwise. */
const withKeyedOperations = <T>(userId: string, key: string, fn: () => T, fingerprint = 'f1') => keyedBy({ userId, key, fingerprint }, fn);

/** Derived operation ids and the Redis clock (docs/architecture.md, Exactly once and Clocks). */
describe('operation ids', () => {
  const shard0 = new Keys('ex', 0);
  const shard1 = new Keys('ex', 1);
  const idOf = (key: string) => key.slice(key.indexOf('op:'));

  const wallet = ['ex:{e0}:wallet:alice:avail'];

  it('a keyed request derives the same ids in every attempt, per script, target and call, on whichever shard', () => {
    const attempt = () =>
      withKeyedOperations('alice', 'key-1', () => [
        operationFor(shard0, 'transferMargin', wallet),
        operationFor(shard0, 'transferMargin', wallet),
        operationFor(shard1, 'deposit', wallet),
      ]);
    const [a, b] = [attempt(), attempt()];
    expect(a).toEqual(b);
    expect(a.every((op) => op.keyed && op.ttlSeconds === 24 * 3600)).toBe(true);
    expect(new Set(a.map((op) => op.key)).size).toBe(3);
    // the record sits under the shard's tag; the id itself is the shard's business not at all
    expect(hashTagOf(a[0].key)).toBe(hashTagOf(shard0.engine));
    const onOther = withKeyedOperations('alice', 'key-1', () => operationFor(shard1, 'transferMargin', wallet));
    expect(hashTagOf(onOther.key)).toBe(hashTagOf(shard1.engine));
    expect(idOf(onOther.key)).toBe(idOf(a[0].key));
  });

  it('another user, key, request or target is another operation; outside a keyed request ids are fresh', () => {
    const deposit = () => operationFor(shard0, 'deposit', wallet).key;
    const one = withKeyedOperations('alice', 'k', deposit);
    expect(withKeyedOperations('bob', 'k', deposit)).not.toBe(one);
    expect(withKeyedOperations('alice', 'k2', deposit)).not.toBe(one);
    // the key reused for another request (its 24 h over) never meets the first one's records
    expect(withKeyedOperations('alice', 'k', deposit, 'f2')).not.toBe(one);
    expect(withKeyedOperations('alice', 'k', () => operationFor(shard0, 'deposit', ['ex:{e0}:wallet:bob:avail']).key)).not.toBe(one);
    const fresh = [operationFor(shard0, 'deposit', wallet), operationFor(shard0, 'deposit', wallet)];
    expect(fresh[0].key).not.toBe(fresh[1].key);
    expect(fresh.every((op) => !op.keyed && op.ttlSeconds === 120)).toBe(true);
    expect(keyedOperation(shard0, 'deposit', wallet)).toBeUndefined();
  });

  it('an attempt that skips a call still pairs every other call with its own record', () => {
    const finish = (sub: string) => operationFor(shard0, 'completeCopyFinish', [`ex:{e0}:copy:sub:${sub}`]).key;
    const [a, b, c] = withKeyedOperations('alice', 'k', () => ['a', 'b', 'c'].map(finish));
    // the retry meets b and c only (a finished meanwhile): b's call must find b's record, not a's
    expect(withKeyedOperations('alice', 'k', () => ['b', 'c'].map(finish))).toEqual([b, c]);
    expect(a).not.toBe(b);
  });

  it('a keyed request keeps its ids across awaits', async () => {
    const deposit = () => operationFor(shard0, 'deposit', wallet).key;
    const ids = await withKeyedOperations('alice', 'k', async () => {
      const first = deposit();
      await new Promise((r) => setTimeout(r, 5));
      return [first, deposit()];
    });
    expect(ids).toEqual(withKeyedOperations('alice', 'k', () => [deposit(), deposit()]));
  });
});

describe('RedisClock', () => {
  it('reads the server once, then carries it forward on the local monotonic clock, never ahead of the server', async () => {
    let local = 1_000;
    let serverNow = 5_000_000; // ms on the server: any offset from this host
    const reads: string[] = [];
    const clock = new RedisClock(
      async (key) => {
        reads.push(key);
        local += 3; // the round trip: the reply comes back later than the server read its clock
        return [Math.floor(serverNow / 1000), (serverNow % 1000) * 1000];
      },
      () => '',
      10_000,
      () => local,
    );
    expect(clock.now('a')).toBeUndefined();
    expect(await clock.learn('a')).toBe(serverNow);
    local += 250;
    serverNow += 253;
    expect(clock.now('a')).toBe(serverNow - 3); // behind the server by at most the round trip
    expect(reads).toEqual(['a']);
    local += 10_000; // old: read again in the background, the old sample meanwhile
    serverNow += 10_000;
    expect(clock.now('a')).toBe(serverNow - 3);
    await new Promise((r) => setImmediate(r));
    expect(reads).toEqual(['a', 'a']);
  });

  it('keeps one sample per server', async () => {
    const clock = new RedisClock(async (key) => (key === 'x:{e0}:op' ? [100, 0] : [200, 0]), hashTagOf, 10_000, () => 0);
    await clock.learn('x:{e0}:op');
    expect(clock.now('y:{e0}:other')).toBe(100_000);
    expect(clock.now('x:{e1}:op')).toBeUndefined();
  });
});
