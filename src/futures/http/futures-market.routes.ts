import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../transport/context';
import { principal } from '../../transport/http/middleware/auth';
import { valid, validate } from '../../platform/http/validate';
import { dealsQuery } from './futures.schema';
import type { DealsQuery } from '../futures-market.service';

/** SPEC 4.4 deals and 4.5 pairs. Market-wide deals and pairs are public, a user's deals need a token. */
export function futuresMarketRoutes(ctx: AppContext, auth: RequestHandler): Router {
  const r = Router();
  r.get('/api/futures/exchange-data/pairs', async (_req, res) => {
    res.json(await ctx.futuresMarket.pairs());
  });
  r.get('/api/futures/deals', validate({ query: dealsQuery }), async (_req, res) => {
    res.json(await ctx.futuresMarket.deals(valid<DealsQuery>(res, 'query')));
  });
  r.get('/api/futures/deals/user', auth, validate({ query: dealsQuery }), async (req, res) => {
    res.json(await ctx.futuresMarket.userDeals(principal(req).userId, valid<DealsQuery>(res, 'query')));
  });
  return r;
}
