import { Router, type RequestHandler } from 'express';
import Joi from 'joi';
import { principal } from '../../platform/http/principal';
import { routeDocs } from '../../platform/http/route-doc';
import type { WalletService } from '../wallet.service';
import { balanceDtoSchema } from './wallet-dto.schema';

const doc = routeDocs('Wallet and futures accounts');

/** The caller's wallet balances (docs/api-contract.md#operator-routes). */
export function walletRoutes(wallets: WalletService, auth: RequestHandler): Router {
  const r = Router();
  const balancesDoc = doc({ summary: "The caller's wallet: one entry per currency held", response: Joi.array().items(balanceDtoSchema) });
  r.get('/api/wallet/balances', balancesDoc, auth, async (req, res) => {
    res.json(await wallets.balances(principal(req).userId));
  });
  return r;
}
