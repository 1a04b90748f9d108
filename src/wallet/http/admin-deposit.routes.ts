import { Router } from 'express';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import type { WalletService } from '../wallet.service';
import { depositSchema } from './wallet.schema';
import { balanceDtoSchema } from './wallet-dto.schema';

const doc = routeDocs('Admin');

/** Operators fund the system (docs/api-contract.md#operator-routes); the caller mounts it behind the admin check. */
export function adminDepositRoutes(wallets: WalletService): Router {
  const r = Router();
  const depositDoc = doc({
    summary: "Credit a user's wallet",
    description: 'Answers the balance of that currency afterwards. An unknown currency is a 400 UNKNOWN_CURRENCY.',
    response: balanceDtoSchema,
    errors: [422],
  });
  r.post('/api/admin/deposits', depositDoc, validate({ body: depositSchema }), async (_req, res) => {
    const b = valid<{ userId: string; currencyCode: string; amount: number }>(res, 'body');
    res.json(await wallets.deposit(b.userId, b.currencyCode, b.amount));
  });
  return r;
}
