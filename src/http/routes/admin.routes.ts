import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../context';
import type { Currency } from '../../domain/market';
import { requireAdmin } from '../middleware/auth';
import { valid, validate } from '../middleware/validate';
import { currencySchema, depositSchema, pairSchema } from '../schemas/admin.schema';
import type { PairRequest } from '../../services/market.service';
import { indexPriceSchema } from '../schemas/futures.schema';

/** Operator endpoints (DESIGN 5); every one needs a token with role admin. */
export function adminRoutes(ctx: AppContext, auth: RequestHandler): Router {
  const r = Router();
  r.use('/api/admin', auth, requireAdmin);
  r.post('/api/admin/currencies', validate({ body: currencySchema }), async (_req, res) => {
    res.json(await ctx.markets.createCurrencyOrConflict(valid<Currency>(res, 'body')));
  });
  r.post('/api/admin/pairs', validate({ body: pairSchema }), async (_req, res) => {
    res.json(await ctx.markets.createPairOrConflict(valid<PairRequest>(res, 'body')));
  });
  r.post('/api/admin/deposits', validate({ body: depositSchema }), async (_req, res) => {
    const b = valid<{ userId: string; currencyCode: string; amount: number }>(res, 'body');
    res.json(await ctx.wallets.deposit(b.userId, b.currencyCode, b.amount));
  });
  r.post('/api/admin/index-price', validate({ body: indexPriceSchema }), async (_req, res) => {
    const b = valid<{ currencyPairCode: string; price: number }>(res, 'body');
    res.json(await ctx.futuresMarket.setIndexPrice(b.currencyPairCode, b.price));
  });
  return r;
}
