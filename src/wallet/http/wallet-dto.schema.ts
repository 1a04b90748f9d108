import Joi from 'joi';
import { dtoSchema } from '../../platform/http/response.schema';
import type { BalanceDto } from '../wallet.service';

/** One currency of a wallet (docs/api-contract.md#operator-routes), for the API reference. */
export const balanceDtoSchema = dtoSchema(
  'Balance',
  Joi.object<BalanceDto, true>({
    currencyCode: Joi.string(),
    available: Joi.number().min(0).description('Free to spend or move'),
    reserved: Joi.number().min(0).description('Held by open orders'),
  }),
);
