import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import { dealsQuery } from './futures.schema';
import { futuresDealsDtoSchema, futuresPairInfoDtoSchema, futuresUserDealsDtoSchema } from './futures-dto.schema';
import type { DealsQuery, FuturesMarketService } from '../futures-market.service';

const doc = routeDocs('Futures market data');

/** The deals routes and futures pairs (docs/futures.md#endpoints). Market-wide deals and pairs are public, a user's deals need a token. */
export function futuresMarketRoutes(market: FuturesMarketService, auth: RequestHandler): Router {
  const r = Router();
  const pairsDoc = doc({ summary: 'Every futures pair (OpenAPI `FuturesPairInfo`)', response: Joi.array().items(futuresPairInfoDtoSchema) });
  r.get('/api/futures/exchange-data/pairs', pairsDoc, async (_req, res) => {
    res.json(await market.pairs());
  });
  const dealsDoc = doc({
    summary: 'Market-wide futures deals, newest first (OpenAPI `FuturesDeal`)',
    description: 'Every futures pair when CurrencyPair is omitted; as far back as the trade history keeps.',
    response: futuresDealsDtoSchema,
  });
  r.get('/api/futures/deals', dealsDoc, validate({ query: dealsQuery }), async (_req, res) => {
    res.json(await market.deals(valid<DealsQuery>(res, 'query')));
  });
  const userDealsDoc = doc({
    summary: "The caller's futures deals, newest first (OpenAPI `FuturesUserDeal`)",
    description: 'One deal per side the caller was on: a trade between two of their orders gives two.',
    response: futuresUserDealsDtoSchema,
  });
  r.get('/api/futures/deals/user', userDealsDoc, auth, validate({ query: dealsQuery }), async (req, res) => {
    res.json(await market.userDeals(principal(req).userId, valid<DealsQuery>(res, 'query')));
  });
  return r;
}
