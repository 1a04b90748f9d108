import { Router, type RequestHandler } from 'express';
import { principal } from '../../platform/http/principal';
import type { WalletService } from '../wallet.service';

/** The caller's wallet balances (DESIGN 5). */
export function walletRoutes(wallets: WalletService, auth: RequestHandler): Router {
  const r = Router();
  r.get('/api/wallet/balances', auth, async (req, res) => {
    res.json(await wallets.balances(principal(req).userId));
  });
  return r;
}
