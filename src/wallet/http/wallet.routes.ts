import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../transport/context';
import { principal } from '../../transport/http/middleware/auth';

export function walletRoutes(ctx: AppContext, auth: RequestHandler): Router {
  const r = Router();
  r.get('/api/wallet/balances', auth, async (req, res) => {
    res.json(await ctx.wallets.balances(principal(req).userId));
  });
  return r;
}
