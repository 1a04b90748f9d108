import type { Logger } from '../platform/config/logger';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { MarketKind } from '../platform/redis/keys';
import type { MarketStore } from '../markets';

/**
 * Moves candles stored before engine shards (one hash tag per market, whose update streams no
 * gateway could read in one XREAD on a cluster) to their shard's candle tag. The worker role runs
 * it before its candles worker starts. Each field is copied only where the new hash lacks it, and
 * the old keys are deleted last, so a crash midway or two workers at once copy nothing twice and
 * lose nothing; a candle folded under the new key before the move keeps the new key's version.
 */
export async function moveLegacyCandles(
  redis: RedisClient,
  shards: EngineShards,
  markets: MarketStore,
  log: Logger,
): Promise<number> {
  let moved = 0;
  for (const kind of ['spot', 'futures'] as MarketKind[]) {
    for (const pair of await markets.listPairs(kind)) {
      const from = shards.keys(0).legacyCandleKeys(kind, pair.code);
      const fields = Object.entries(await redis.hgetall(from.candles));
      if (fields.length === 0) continue;
      const to = shards.keysOf(pair);
      await inChunks(fields, ([field, value]) => redis.hsetnx(to.candles(kind, pair.code), field, value));
      const applied = await redis.zrange(from.applied, '0', '-1', 'WITHSCORES');
      const pairs = Array.from({ length: applied.length / 2 }, (_, i): [string, string] => [applied[2 * i], applied[2 * i + 1]]);
      await inChunks(pairs, ([id, ms]) => redis.zadd(to.candlesApplied(kind, pair.code), 'NX', ms, id));
      // the candles hash last: while it exists, the move is not done and runs again
      await redis.del(from.applied);
      await redis.del(from.events);
      await redis.del(from.candles);
      moved++;
      log.info({ kind, pair: pair.code, candles: fields.length }, 'candles moved to the shard candle tag');
    }
  }
  return moved;
}

/** Runs `op` over `items` a thousand at a time (pipelined by the connection), in order of chunks. */
async function inChunks<T>(items: T[], op: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += 1000) await Promise.all(items.slice(i, i + 1000).map(op));
}
