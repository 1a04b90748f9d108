import { Router, type RequestHandler } from 'express';
import { principal } from '../../platform/http/principal';
import { valid, validate } from '../../platform/http/validate';
import { dealsQuery } from './futures.schema';
import type { DealsQuery, FuturesMarketService } from '../futures-market.service';

/** SPEC 4.4 deals and 4.5 pairs. Market-wide deals and pairs are public, a user's deals need a token. */
export function futuresMarketRoutes(market: FuturesMarketService, auth: RequestHandler): Router {
  const r = Router();
  r.get('/api/futures/exchange-data/pairs', async (_req, res) => {
    res.json(await market.pairs());
  });
  r.get('/api/futures/deals', validate({ query: dealsQuery }), async (_req, res) => {
    res.json(await market.deals(valid<DealsQuery>(res, 'query')));
  });
  r.get('/api/futures/deals/user', auth, validate({ query: dealsQuery }), async (req, res) => {
    res.json(await market.userDeals(principal(req).userId, valid<DealsQuery>(res, 'query')));
  });
  return r;
}
