import { Router, type RequestHandler } from 'express';
import type { AppContext } from '../../transport/context';
import { principal } from '../../transport/http/middleware/auth';
import { valid, validate } from '../../platform/http/validate';
import { createAccountSchema, transferSchema } from './futures.schema';
import type { CreateAccountRequest, TransferRequest } from '../futures-account.service';

/** DESIGN 5: futures accounts and transfers between them and the wallet. */
export function futuresAccountRoutes(ctx: AppContext, auth: RequestHandler): Router {
  const r = Router();
  r.post('/api/futures/accounts', auth, validate({ body: createAccountSchema }), async (req, res) => {
    res.json(await ctx.futuresAccounts.create(principal(req).userId, valid<CreateAccountRequest>(res, 'body')));
  });
  r.get('/api/futures/accounts', auth, async (req, res) => {
    res.json(await ctx.futuresAccounts.list(principal(req).userId));
  });
  r.post('/api/wallet/transfer', auth, validate({ body: transferSchema }), async (req, res) => {
    const userId = principal(req).userId;
    await ctx.futuresAccounts.transfer(userId, valid<TransferRequest>(res, 'body'));
    res.json({ accounts: await ctx.futuresAccounts.list(userId), wallet: await ctx.wallets.balances(userId) });
  });
  return r;
}
