import { Router } from 'express';
import { valid, validate } from '../../platform/http/validate';
import type { MarketDataService } from '../market-data.service';
import { bookQuery, tradesQuery } from './market-data.schema';

/** Public spot market data: the book and the most recent trades (DESIGN 4). */
export function spotMarketDataRoutes(marketData: MarketDataService): Router {
  const r = Router();
  r.get('/api/orderbook/:pair', validate({ query: bookQuery }), async (req, res) => {
    const { depth } = valid<{ depth: number }>(res, 'query');
    res.json(await marketData.orderBook('spot', String(req.params.pair), depth));
  });
  r.get('/api/trades/:pair', validate({ query: tradesQuery }), async (req, res) => {
    const { limit } = valid<{ limit: number }>(res, 'query');
    res.json(await marketData.recentTrades(String(req.params.pair), limit));
  });
  return r;
}
