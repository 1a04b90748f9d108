import Joi from 'joi';
import { STP_MODES } from '../../domain/order';
import { pageSchema, positive } from '../../platform/http/common.schema';

/** `forMarketBuy` for a market buy, `otherwise` for every other order. */
const byOrderKind = (forMarketBuy: Joi.Schema, otherwise: Joi.Schema) =>
  Joi.when('type', {
    is: 'market',
    then: Joi.when('side', { is: 'buy', then: forMarketBuy, otherwise }),
    otherwise,
  });

/** docs/spot.md#orders: limit needs price and amount; a market buy spends quoteAmount; a market sell sells amount. */
export const placeSpotOrderSchema = Joi.object({
  currencyPairCode: Joi.string().max(80).required(),
  side: Joi.string().valid('buy', 'sell').required(),
  type: Joi.string().valid('limit', 'market').required(),
  price: Joi.when('type', {
    is: 'limit',
    then: positive().required(),
    otherwise: Joi.valid(null, 0).optional(),
  }),
  amount: byOrderKind(
    Joi.valid(null).optional().messages({ 'any.only': 'a market buy takes quoteAmount (the quote currency to spend), not amount' }),
    positive().required(),
  ),
  quoteAmount: byOrderKind(
    positive().required().messages({ 'any.required': 'a market buy takes quoteAmount: the quote currency to spend' }),
    Joi.valid(null).optional().messages({ 'any.only': 'quoteAmount is for market buys only; this order takes amount' }),
  ),
  postOnly: Joi.boolean().default(false),
  selfTradePrevention: Joi.string()
    .valid(...STP_MODES)
    .default('NONE')
    .description("Applies against the caller's own resting orders: on spot the account is the user's wallet (docs/spot.md)"),
  clientOrderId: Joi.string().min(1).max(64).allow(null),
}).example({ currencyPairCode: 'BTC_USDT', side: 'buy', type: 'limit', price: 30000, amount: 0.01 });

export const listSpotOrdersQuery = Joi.object({
  currencyPairCode: Joi.string().max(80),
  status: Joi.string().valid('open', 'partiallyFilled', 'filled', 'cancelled', 'expired'),
  ...pageSchema(50),
});

export const cancelAllQuery = Joi.object({
  currencyPairCode: Joi.string().max(80).required(),
});

export const orderIdParams = Joi.object({ orderId: Joi.string().pattern(/^\d{1,16}$/).required() });

export const userTradesQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(1000).default(100),
  since: Joi.date().iso(),
  beforeId: Joi.number().integer().min(1).description('Only fills of trades with a smaller id: the next page starts below the last id read'),
});
