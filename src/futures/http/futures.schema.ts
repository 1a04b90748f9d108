import Joi from 'joi';
import { CURRENCY_CODE } from '../../domain/market';
import { FUTURES_STATUSES } from '../../domain/futures';
import { STP_MODES } from '../../domain/order';
import { positive } from '../../platform/http/common.schema';

const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);
/** TP, SL and the price of a market order: omitted, null or 0 means none (docs/futures.md). */
const optionalPrice = Joi.number().min(0).allow(null);

export const createFuturesOrderSchema = Joi.object({
  isMarket: Joi.boolean().required(),
  isLong: Joi.boolean().required(),
  price: Joi.when('isMarket', { is: false, then: positive().required(), otherwise: optionalPrice }),
  stopLoss: optionalPrice,
  takeProfit: optionalPrice,
  amount: positive().required(),
  currencyPairCode: Joi.string().max(80).required(),
  futuresAccountId: id.required(),
  clientOrderId: Joi.string().min(1).max(64).allow(null),
  // post-only never takes and IOC never rests: together they could do nothing
  postOnly: Joi.boolean().when('timeInForce', { is: 'IOC', then: Joi.valid(false) }),
  selfTradePrevention: Joi.string().valid(...STP_MODES)
    .description("Applies against resting orders of the same futures account; the user's other accounts trade with it (docs/futures.md)"),
  timeInForce: Joi.string().valid('GTC', 'IOC').default('GTC'),
}).example({
  isMarket: false, isLong: true, price: 30000, amount: 0.01, currencyPairCode: 'BTC_USDT', futuresAccountId: 1,
  clientOrderId: 'my-order-1',
});

export const updateTakeProfitSchema = Joi.object({ orderId: id.required(), takeProfit: optionalPrice.required() });
export const updateStopLossSchema = Joi.object({ orderId: id.required(), stopLoss: optionalPrice.required() });

export const closeSchema = Joi.object({
  orderId: id.required(),
  isMarket: Joi.boolean().required(),
  limitPrice: Joi.when('isMarket', { is: false, then: positive().required(), otherwise: optionalPrice }),
  // extension: close this much of the position (rounded down to the lot); omitted or null: all of it
  amount: positive().allow(null),
});

/** Futures lists: Page 1 and PageSize 100 by default (docs/api-contract.md#paging-and-query-names), PageSize at most 500. */
const paging = {
  Page: Joi.number().integer().min(1).max(1_000_000).default(1),
  PageSize: Joi.number().integer().min(1).max(500).default(100),
};
const dates = {
  DateFrom: Joi.date().iso(),
  DateTo: Joi.date().iso().when('DateFrom', { is: Joi.exist(), then: Joi.date().min(Joi.ref('DateFrom')) }),
};

export const ordersHistoryQuery = Joi.object({
  CurrencyPair: Joi.string().max(80),
  ...paging,
  ...dates,
  Statuses: Joi.array().items(Joi.number().integer().valid(...FUTURES_STATUSES)).single(),
  FuturesAccountId: id,
});

export const positionsQuery = Joi.object({
  CurrencyPair: Joi.string().max(80),
  ...paging,
  ...dates,
  FuturesAccountId: id,
  IsActive: Joi.boolean(),
});

export const dealsQuery = Joi.object({ CurrencyPair: Joi.string().max(80), ...paging, ...dates });

export const futuresBookQuery = Joi.object({ depth: Joi.number().integer().min(1).max(1000).default(100) });

export const createAccountSchema = Joi.object({
  name: Joi.string().min(1).max(64).required(),
  currencyCode: Joi.string().pattern(CURRENCY_CODE).required(),
  leverage: Joi.number().integer().min(1).max(1000).required(),
});

export const transferSchema = Joi.object({
  fromFuturesAccountId: id.allow(null).required(),
  toFuturesAccountId: id.allow(null).required(),
  currencyCode: Joi.string().pattern(CURRENCY_CODE).required(),
  amount: positive().required(),
}).example({ fromFuturesAccountId: null, toFuturesAccountId: 1, currencyCode: 'USDT', amount: 1000 });

export const indexPriceSchema = Joi.object({
  currencyPairCode: Joi.string().max(80).required(),
  price: positive().required(),
  /** Which source reports (an operator, an oracle); the index is the median of the fresh sources. */
  source: Joi.string().pattern(/^[A-Za-z0-9_.-]+$/).max(40).default('admin'),
});
