import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../transport/context';
import type { Currency } from '../../domain/market';
import { requireAdmin } from '../../transport/http/middleware/auth';
import { valid, validate } from '../../platform/http/validate';
import { currencySchema, depositSchema, pairSchema } from './admin.schema';
import type { PairRequest } from '../market.service';
import { indexPriceSchema } from '../../futures/http/futures.schema';

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
