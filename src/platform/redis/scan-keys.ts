import { Cluster } from 'ioredis';
import type Redis from 'ioredis';

/**
 * Every key matching `pattern`, a SCAN page at a time: on a cluster each master is scanned in turn
 * (a SCAN sent to the cluster client reaches one node only). Yields the node a page came from, so
 * a caller can act on its keys there.
 */
export async function* scanKeys(redis: Redis | Cluster, pattern: string, count = 5000): AsyncGenerator<{ node: Redis; keys: string[] }> {
  for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length) yield { node, keys };
    } while (cursor !== '0');
  }
}

/** Every key matching `pattern`, all at once (tests and tools: a store's whole key space in memory). */
export async function allKeys(redis: Redis | Cluster, pattern: string): Promise<string[]> {
  const out: string[] = [];
  for await (const page of scanKeys(redis, pattern)) out.push(...page.keys);
  return out;
}
