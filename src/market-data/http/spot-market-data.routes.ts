import { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import type { MarketDataService } from '../market-data.service';
import { bookQuery, tradesQuery } from './market-data.schema';
import { orderBookDtoSchema, spotTradeDtoSchema } from './market-data-dto.schema';

const doc = routeDocs('Spot market data');

/** Public spot market data: the book and the most recent trades (docs/spot.md#reading). */
export function spotMarketDataRoutes(marketData: MarketDataService): Router {
  const r = Router();
  const bookDoc = doc({ summary: 'Order book of a spot pair, aggregated by price', response: orderBookDtoSchema, errors: [404] });
  r.get('/api/orderbook/:pair', bookDoc, validate({ query: bookQuery }), async (req, res) => {
    const { depth } = valid<{ depth: number }>(res, 'query');
    res.json(await marketData.orderBook('spot', String(req.params.pair), depth));
  });
  const tradesDoc = doc({
    summary: 'Trades of a spot pair, newest first (kept TRADE_HISTORY_DAYS; beforeId pages on)',
    response: Joi.array().items(spotTradeDtoSchema),
    errors: [404],
  });
  r.get('/api/trades/:pair', tradesDoc, validate({ query: tradesQuery }), async (req, res) => {
    const { limit, beforeId } = valid<{ limit: number; beforeId?: number }>(res, 'query');
    res.json(await marketData.recentTrades(String(req.params.pair), limit, beforeId));
  });
  return r;
}
