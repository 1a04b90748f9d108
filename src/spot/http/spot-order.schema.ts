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

const PLACE_FIELDS = new Set(['currencyPairCode', 'side', 'type', 'price', 'amount', 'quoteAmount', 'postOnly', 'selfTradePrevention', 'clientOrderId']);
const STP = new Set<unknown>(STP_MODES);
/** What `positive()` takes without converting: a finite JSON number above zero, within 2^53 (joi's number.unsafe). */
const isPositive = (v: unknown) => typeof v === 'number' && v > 0 && v <= Number.MAX_SAFE_INTEGER;
const isNone = (v: unknown) => v === undefined || v === null;

/**
 * placeSpotOrderSchema's answer for a body it certainly accepts, without running joi (a twentieth
 * of an order request's CPU, docs/performance.md#http): the body with its defaults, or undefined
 * when anything is unusual, and joi then judges it and words the errors. A property test holds it
 * to joi's verdict and value (test/property/spot-order-schema.property.test.ts).
 */
export function plainSpotOrder(body: unknown): PlaceSpotBody | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  for (const key in b) if (!PLACE_FIELDS.has(key) || b[key] === undefined) return undefined;
  const { currencyPairCode: pair, side, type, price, amount, quoteAmount, postOnly, selfTradePrevention: stp, clientOrderId: clid } = b;
  if (typeof pair !== 'string' || pair.length === 0 || pair.length > 80) return undefined;
  if (side !== 'buy' && side !== 'sell') return undefined;
  if (type === 'limit') {
    if (!isPositive(price) || !isPositive(amount) || !isNone(quoteAmount)) return undefined;
  } else if (type === 'market') {
    if (!(isNone(price) || price === 0)) return undefined;
    const spends = side === 'buy' ? quoteAmount : amount;
    const other = side === 'buy' ? amount : quoteAmount;
    if (!isPositive(spends) || !isNone(other)) return undefined;
  } else return undefined;
  if (postOnly !== undefined && typeof postOnly !== 'boolean') return undefined;
  if (stp !== undefined && !STP.has(stp)) return undefined;
  if (clid !== undefined && clid !== null && !(typeof clid === 'string' && clid.length >= 1 && clid.length <= 64)) return undefined;
  return { ...b, postOnly: postOnly ?? false, selfTradePrevention: stp ?? 'NONE' } as PlaceSpotBody;
}

/** The body placeSpotOrderSchema validates to. */
export interface PlaceSpotBody {
  currencyPairCode: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: number | null;
  amount?: number | null;
  quoteAmount?: number | null;
  postOnly: boolean;
  selfTradePrevention: string;
  clientOrderId?: string | null;
}

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
