import { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import type { MarketService } from '../market.service';
import { currencyDtoSchema, spotPairDtoSchema } from './markets-dto.schema';

const doc = routeDocs('Markets');

/** Public reference data: currencies and spot pairs (docs/api-contract.md#operator-routes). */
export function marketsRoutes(markets: MarketService): Router {
  const r = Router();
  r.get('/api/currencies', doc({ summary: 'Every currency', response: Joi.array().items(currencyDtoSchema) }), async (_req, res) => {
    res.json(await markets.listCurrencies());
  });
  r.get(
    '/api/currencies/pairs',
    doc({ summary: 'Every spot pair with its trading parameters', response: Joi.array().items(spotPairDtoSchema) }),
    async (_req, res) => {
      res.json(await markets.listSpotPairs());
    },
  );
  return r;
}
