import { Router } from 'express';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import type { FuturesMarketService } from '../futures-market.service';
import { indexPriceSchema } from './futures.schema';
import { indexPriceDtoSchema } from './futures-dto.schema';

const doc = routeDocs('Admin');

/** Operators (or an oracle) set a futures pair's index price (docs/api-contract.md#operator-routes); mounted behind the admin check. */
export function adminIndexPriceRoutes(market: FuturesMarketService): Router {
  const r = Router();
  const indexDoc = doc({
    summary: "Record one index source's price of a futures pair",
    description:
      'Records the price of `source` (default admin) with its time. The index is the median of the fresh sources (pushed within INDEX_STALE_SECONDS), with the same pair\'s spot impact mid held within 0.5 % of them; the mark price follows from it (docs/futures.md). A price that rounds to zero at the pair\'s digits is a 422.',
    response: indexPriceDtoSchema,
    errors: [404, 422],
  });
  r.post('/api/admin/index-price', indexDoc, validate({ body: indexPriceSchema }), async (_req, res) => {
    const b = valid<{ currencyPairCode: string; price: number; source: string }>(res, 'body');
    res.json(await market.setIndexPrice(b.currencyPairCode, b.price, b.source));
  });
  return r;
}
