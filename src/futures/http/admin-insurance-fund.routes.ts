import { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';
import type { InsuranceFundDto, InsuranceFundPositionDto, InsuranceFundReader } from '../insurance-fund';

const doc = routeDocs('Admin');

export const insuranceFundPositionDtoSchema = dtoSchema(
  'InsuranceFundPosition',
  Joi.object<InsuranceFundPositionDto, true>({
    currencyPairCode: Joi.string(),
    isLong: Joi.boolean(),
    amount: Joi.number().positive(),
    entryPrice: Joi.number().min(0).description('Average of the marks it was taken over at (the fund paid the loss down to them)'),
  }),
);

export const insuranceFundDtoSchema = dtoSchema(
  'InsuranceFund',
  Joi.object<InsuranceFundDto, true>({
    currencyCode: Joi.string(),
    balance: Joi.number().min(0).description('Never negative: liquidation losses beyond it go to auto-deleveraging'),
    positions: Joi.array().items(insuranceFundPositionDtoSchema)
      .description('What the fund took over in liquidations and has not unwound yet (each sweep offers it to the book)'),
  }),
);

/** Operators read the insurance funds (docs/futures.md); mounted behind the admin check. */
export function adminInsuranceFundRoutes(fund: InsuranceFundReader): Router {
  const r = Router();
  const fundDoc = doc({
    summary: 'Insurance fund balance per margin currency',
    description:
      'What the insurance fund of each margin currency holds: fed by what liquidations leave of a margin, ' +
      'it takes over what the book does not absorb at the bankruptcy price while it can pay, then auto-deleveraging takes the rest; ' +
      'the positions it took over and still holds are listed with it.',
    response: Joi.array().items(insuranceFundDtoSchema),
  });
  r.get('/api/admin/insurance-fund', fundDoc, async (_req, res) => {
    res.json(await fund.balances());
  });
  return r;
}
