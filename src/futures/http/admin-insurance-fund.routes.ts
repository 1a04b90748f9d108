import { Router } from 'express';
import Joi from 'joi';
import { routeDocs } from '../../platform/http/route-doc';
import { dtoSchema } from '../../platform/http/response.schema';
import { valid, validate } from '../../platform/http/validate';
import { positive } from '../../platform/http/common.schema';
import { CURRENCY_CODE } from '../../domain/market';
import type { InsuranceFundDto, InsuranceFundPositionDto, InsuranceFundReader } from '../insurance-fund';
import type { InsuranceDepositRequest, InsuranceFunding } from '../insurance-funding';

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
    shards: Joi.array()
      .items(Joi.object({
        shard: Joi.number().integer().min(0),
        balance: Joi.number().min(0),
        fees: Joi.number().min(0).description('Fees collected on the shard in this currency'),
        pnlPool: Joi.number().description("The shard's counterparty of realized futures pnl in this currency"),
      }))
      .description("Each engine shard's own fund, fees and pnl pool: a liquidation on a shard draws on that shard's fund alone"),
  }),
);

const insuranceDepositSchema = Joi.object({
  shard: Joi.number().integer().min(0).max(63).required(),
  currencyCode: Joi.string().pattern(CURRENCY_CODE).required(),
  amount: positive().required(),
});

const insuranceDepositDtoSchema = dtoSchema(
  'InsuranceDeposit',
  Joi.object({ shard: Joi.number().integer(), currencyCode: Joi.string(), balance: Joi.number().description("The shard's fund after the deposit") }),
);

/** Operators read the insurance funds (docs/futures.md); mounted behind the admin check. */
export function adminInsuranceFundRoutes(fund: InsuranceFundReader, funding: InsuranceFunding): Router {
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
  const depositDoc = doc({
    summary: "Fund one engine shard's insurance fund",
    description: "The operator's deposit into the fund of `shard` (0..ENGINE_SHARDS−1, 422 past it); it counts in the reconciler's deposits.",
    response: insuranceDepositDtoSchema,
    errors: [422],
  });
  r.post('/api/admin/insurance-fund', depositDoc, validate({ body: insuranceDepositSchema }), async (_req, res) => {
    res.json(await funding.deposit(valid<InsuranceDepositRequest>(res, 'body')));
  });
  return r;
}
