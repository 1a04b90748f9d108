import { Router } from 'express';
import type { MarketService } from '../market.service';

/** Public reference data: currencies and spot pairs (DESIGN 5). */
export function marketsRoutes(markets: MarketService): Router {
  const r = Router();
  r.get('/api/currencies', async (_req, res) => {
    res.json(await markets.listCurrencies());
  });
  r.get('/api/currencies/pairs', async (_req, res) => {
    res.json(await markets.listSpotPairs());
  });
  return r;
}
