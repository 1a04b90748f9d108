import { Router } from 'express';
import type { Currency } from '../../domain/market';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import { currencySchema, pairSchema } from '../market.schema';
import type { MarketService, PairRequest } from '../market.service';
import { currencyDtoSchema, pairDtoSchema } from './markets-dto.schema';

const doc = routeDocs('Admin');

/** Operators create currencies and pairs (docs/api-contract.md#operator-routes); the caller mounts it behind the admin check. */
export function adminMarketsRoutes(markets: MarketService): Router {
  const r = Router();
  r.post(
    '/api/admin/currencies',
    doc({ summary: 'Create a currency', response: currencyDtoSchema, errors: [409] }),
    validate({ body: currencySchema }),
    async (_req, res) => {
      res.json(await markets.createCurrencyOrConflict(valid<Currency>(res, 'body')));
    },
  );
  r.post(
    '/api/admin/pairs',
    doc({
      summary: 'Create a spot or futures pair',
      description:
        'The pair code is BASE_QUOTE; both currencies must exist (400 UNKNOWN_CURRENCY). The pair rules of docs/api-contract.md (margin at the maximum leverage above maintenance, maker fee at most the taker fee, digits the currencies can hold) are a 422.',
      response: pairDtoSchema,
      errors: [409, 422],
    }),
    validate({ body: pairSchema }),
    async (_req, res) => {
      res.json(await markets.createPairOrConflict(valid<PairRequest>(res, 'body')));
    },
  );
  return r;
}
