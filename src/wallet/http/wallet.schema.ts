import Joi from 'joi';
import { CURRENCY_CODE } from '../../domain/market';
import { positive, userId } from '../../platform/http/common.schema';

export const depositSchema = Joi.object({
  userId: userId.required(),
  currencyCode: Joi.string().pattern(CURRENCY_CODE).required(),
  amount: positive().required(),
});
