import Joi from 'joi';
import { CURRENCY_CODE } from '../domain/market';
import { positive } from '../platform/http/common.schema';

/** The shape of a currency and a pair, for the admin endpoints and MARKETS_FILE alike; domain/pair-rules.ts holds the invariants. */
export const currencySchema = Joi.object({
  code: Joi.string().pattern(CURRENCY_CODE).required(),
  name: Joi.string().min(1).max(64).required(),
  decimals: Joi.number().integer().min(0).max(18).required(),
});

const rate = Joi.number().min(0).max(1);

export const pairSchema = Joi.object({
  kind: Joi.string().valid('spot', 'futures').required(),
  baseCurrencyCode: Joi.string().pattern(CURRENCY_CODE).required(),
  quoteCurrencyCode: Joi.string().pattern(CURRENCY_CODE).required(),
  digitsPrice: Joi.number().integer().min(0).max(12).required(),
  digitsAmount: Joi.number().integer().min(0).max(12).required(),
  minBaseAmount: Joi.number().min(0).required(),
  minQuoteAmount: Joi.number().min(0).required(),
  makerFee: rate.required(),
  takerFee: rate.required(),
  contractValue: positive().when('kind', { is: 'futures', then: Joi.required(), otherwise: Joi.forbidden() }),
  lotSize: positive().when('kind', { is: 'futures', then: Joi.required(), otherwise: Joi.forbidden() }),
  maxLeverage: Joi.number().integer().min(1).max(200).when('kind', {
    is: 'futures', then: Joi.required(), otherwise: Joi.forbidden(),
  }),
  maintenanceMarginRate: Joi.number().greater(0).less(1).when('kind', {
    is: 'futures', then: Joi.required(), otherwise: Joi.forbidden(),
  }),
  // the shard that runs the market (0..ENGINE_SHARDS-1: the service answers 422 past the last one)
  engineShard: Joi.number().integer().min(0).max(63),
});
