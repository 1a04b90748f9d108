import type { Pair } from '../../src/domain/market';
import type { MarketStore } from '../../src/markets';

/**
 * The real market store, except that the pairs named in `shards` run on the given engine shard:
 * how a reader test puts a market on another shard without pair creation (which fixes it in
 * production). Everything else is the store's own answer.
 */
export function storeWithShards(store: MarketStore, shards: Record<string, number>): MarketStore {
  const onShard = <T extends Pair | undefined>(p: T): T => (p && p.code in shards ? { ...p, engineShard: shards[p.code] } : p);
  return Object.assign(Object.create(store) as MarketStore, {
    getPair: async (kind: Parameters<MarketStore['getPair']>[0], code: string) => onShard(await store.getPair(kind, code)),
    listPairs: async (kind: Parameters<MarketStore['listPairs']>[0]) => (await store.listPairs(kind)).map(onShard),
  });
}
