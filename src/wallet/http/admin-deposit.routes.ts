import { Router } from 'express';
import { valid, validate } from '../../platform/http/validate';
import type { WalletService } from '../wallet.service';
import { depositSchema } from './wallet.schema';

/** Operators fund the system (DESIGN 4); the caller mounts it behind the admin check. */
export function adminDepositRoutes(wallets: WalletService): Router {
  const r = Router();
  r.post('/api/admin/deposits', validate({ body: depositSchema }), async (_req, res) => {
    const b = valid<{ userId: string; currencyCode: string; amount: number }>(res, 'body');
    res.json(await wallets.deposit(b.userId, b.currencyCode, b.amount));
  });
  return r;
}
