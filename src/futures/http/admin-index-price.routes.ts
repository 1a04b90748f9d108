import { Router } from 'express';
import { valid, validate } from '../../platform/http/validate';
import type { FuturesMarketService } from '../futures-market.service';
import { indexPriceSchema } from './futures.schema';

/** Operators (or an oracle) set a futures pair's index price (DESIGN 5); mounted behind the admin check. */
export function adminIndexPriceRoutes(market: FuturesMarketService): Router {
  const r = Router();
  r.post('/api/admin/index-price', validate({ body: indexPriceSchema }), async (_req, res) => {
    const b = valid<{ currencyPairCode: string; price: number }>(res, 'body');
    res.json(await market.setIndexPrice(b.currencyPairCode, b.price));
  });
  return r;
}
