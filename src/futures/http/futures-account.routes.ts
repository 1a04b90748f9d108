import { Router, type RequestHandler } from 'express';
import type { WalletService } from '../../wallet';
import { principal } from '../../platform/http/principal';
import { valid, validate } from '../../platform/http/validate';
import { createAccountSchema, transferSchema } from './futures.schema';
import type { CreateAccountRequest, FuturesAccountService, TransferRequest } from '../futures-account.service';

/** DESIGN 5: futures accounts and transfers between them and the wallet. */
export function futuresAccountRoutes(
  accounts: FuturesAccountService,
  wallets: Pick<WalletService, 'balances'>,
  auth: RequestHandler,
): Router {
  const r = Router();
  r.post('/api/futures/accounts', auth, validate({ body: createAccountSchema }), async (req, res) => {
    res.json(await accounts.create(principal(req).userId, valid<CreateAccountRequest>(res, 'body')));
  });
  r.get('/api/futures/accounts', auth, async (req, res) => {
    res.json(await accounts.list(principal(req).userId));
  });
  r.post('/api/wallet/transfer', auth, validate({ body: transferSchema }), async (req, res) => {
    const userId = principal(req).userId;
    await accounts.transfer(userId, valid<TransferRequest>(res, 'body'));
    res.json({ accounts: await accounts.list(userId), wallet: await wallets.balances(userId) });
  });
  return r;
}
