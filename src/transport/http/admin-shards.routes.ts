import { Router } from 'express';
import Joi from 'joi';
import { shardOfPair } from '../../domain/market';
import type { MarketStore } from '../../markets';
import type { PlatformDeps } from '../../platform/deps';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';
import { shardPlacements, type ShardPlacement } from '../../platform/redis/shard-placement';

const doc = routeDocs('Admin');

export interface EngineShardDto extends ShardPlacement {
  markets: { spot: string[]; futures: string[] };
}

export const engineShardDtoSchema = dtoSchema(
  'EngineShard',
  Joi.object<EngineShardDto, true>({
    shard: Joi.number().integer().min(0),
    tag: Joi.string().description('The hash tag (without braces) every engine key of the shard carries'),
    slot: Joi.number().integer().min(0).max(16383).description("The cluster slot of the shard's keys"),
    node: Joi.string().allow(null).description('`host:port` of the master serving the slot now (the one server off a cluster); null if none does'),
    markets: Joi.object({
      spot: Joi.array().items(Joi.string()).description('Codes of the spot pairs the shard runs'),
      futures: Joi.array().items(Joi.string()).description('Codes of the futures pairs the shard runs'),
    }),
  }),
);

/** Operators read where each engine shard lives and what it runs (docs/architecture.md, "Shard map"); behind the admin check. */
export function adminShardsRoutes(deps: Pick<PlatformDeps, 'redis' | 'config'> & { markets: MarketStore }): Router {
  const r = Router();
  const shardsDoc = doc({
    summary: 'Engine shards: hash tag, slot, serving master and markets',
    description:
      'One entry per engine shard (ENGINE_SHARDS), shard 0 first. `node` is read from the cluster now (CLUSTER SLOTS), ' +
      'so two shards with the same `node` share a master and add no matching capacity: move one of their slots ' +
      '(the service also logs this at start). Markets are listed by kind, each on the shard fixed at its creation.',
    response: Joi.array().items(engineShardDtoSchema),
  });
  r.get('/api/admin/shards', shardsDoc, async (_req, res) => {
    const placements = await shardPlacements(deps.redis, deps.config.engineShards);
    const shards: EngineShardDto[] = placements.map((p) => ({ ...p, markets: { spot: [], futures: [] } }));
    for (const kind of ['spot', 'futures'] as const) {
      for (const pair of await deps.markets.listPairs(kind)) shards[shardOfPair(pair)]?.markets[kind].push(pair.code);
    }
    res.json(shards);
  });
  return r;
}
