import { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';
import type { InsuranceFundDto, InsuranceFundReader } from '../insurance-fund';

const doc = routeDocs('Admin');

export const insuranceFundDtoSchema = dtoSchema(
  'InsuranceFund',
  Joi.object<InsuranceFundDto, true>({
    currencyCode: Joi.string(),
    balance: Joi.number().min(0).description('Never negative: liquidation losses beyond it go to auto-deleveraging'),
  }),
);

/** Operators read the insurance funds (DESIGN 4, docs/futures.md); mounted behind the admin check. */
export function adminInsuranceFundRoutes(fund: InsuranceFundReader): Router {
  const r = Router();
  const fundDoc = doc({
    summary: 'Insurance fund balance per margin currency',
    description:
      'What the insurance fund of each margin currency holds: fed by what liquidations leave of a margin, ' +
      'it takes over what the book does not absorb at the bankruptcy price while it can pay, then auto-deleveraging takes the rest.',
    response: Joi.array().items(insuranceFundDtoSchema),
  });
  r.get('/api/admin/insurance-fund', fundDoc, async (_req, res) => {
    res.json(await fund.balances());
  });
  return r;
}
