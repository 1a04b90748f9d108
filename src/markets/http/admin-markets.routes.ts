import { Router } from 'express';
import type { Currency } from '../../domain/market';
import { valid, validate } from '../../platform/http/validate';
import { currencySchema, pairSchema } from '../market.schema';
import type { MarketService, PairRequest } from '../market.service';

/** Operators create currencies and pairs (DESIGN 5); the caller mounts it behind the admin check. */
export function adminMarketsRoutes(markets: MarketService): Router {
  const r = Router();
  r.post('/api/admin/currencies', validate({ body: currencySchema }), async (_req, res) => {
    res.json(await markets.createCurrencyOrConflict(valid<Currency>(res, 'body')));
  });
  r.post('/api/admin/pairs', validate({ body: pairSchema }), async (_req, res) => {
    res.json(await markets.createPairOrConflict(valid<PairRequest>(res, 'body')));
  });
  return r;
}
