import { Router } from 'express';
import type { AppContext } from '../../transport/context';
import { valid, validate } from '../../platform/http/validate';
import { bookQuery, tradesQuery } from '../../spot/http/spot-order.schema';

/** Public reference and market data of the spot side. */
export function marketRoutes(ctx: AppContext): Router {
  const r = Router();
  r.get('/api/currencies', async (_req, res) => {
    res.json(await ctx.markets.listCurrencies());
  });
  r.get('/api/currencies/pairs', async (_req, res) => {
    res.json(await ctx.markets.listSpotPairs());
  });
  r.get('/api/orderbook/:pair', validate({ query: bookQuery }), async (req, res) => {
    const { depth } = valid<{ depth: number }>(res, 'query');
    res.json(await ctx.marketData.orderBook('spot', String(req.params.pair), depth));
  });
  r.get('/api/trades/:pair', validate({ query: tradesQuery }), async (req, res) => {
    const { limit } = valid<{ limit: number }>(res, 'query');
    res.json(await ctx.marketData.recentTrades(String(req.params.pair), limit));
  });
  return r;
}
