import { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';
import { RECONCILE_TERMS, type CurrencyReconciliation, type Reconciler } from '../reconciler';

const doc = routeDocs('Admin');

export const reconciliationDtoSchema = dtoSchema(
  'CurrencyReconciliation',
  Joi.object<CurrencyReconciliation, true>({
    currencyCode: Joi.string(),
    terms: Joi.object(Object.fromEntries(RECONCILE_TERMS.map((t) => [t, Joi.number()]))),
    difference: Joi.number().description('Σ held − (deposits − withdrawals): 0 when the invariant holds'),
    holds: Joi.boolean(),
    negative: Joi.array().items(Joi.string()).description('Balances below zero: must be empty'),
    shards: Joi.array()
      .items(Joi.object({ shard: Joi.number().integer(), futuresAccounts: Joi.number() }))
      .description("Futures margin (free and locked) held on each engine shard: the parts of terms.futuresAccounts"),
  }),
);

/** The operator's check of the money invariant over every shard (docs/architecture.md); mounted behind the admin check. */
export function adminReconcileRoutes(reconciler: Reconciler): Router {
  const r = Router();
  const reconcileDoc = doc({
    summary: 'Reconcile the money of every shard, per currency',
    description:
      'Σ home + Σ escrow + Σ reserved + futures accounts + in transit + fees + insurance + pnl pools = deposits − withdrawals, ' +
      'read from every shard (docs/architecture.md, "Reading /api/admin/reconcile"). Exact while no money moves.',
    response: Joi.array().items(reconciliationDtoSchema),
  });
  r.get('/api/admin/reconcile', reconcileDoc, async (_req, res) => {
    res.json(await reconciler.check());
  });
  return r;
}
