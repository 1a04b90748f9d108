import Joi from 'joi';
import { STP_MODES } from '../../domain/order';
import { dtoSchema, integer, isoTimestamp, pagedSchema } from '../../platform/http/response.schema';
import type { SpotOrderDto } from '../spot-order-dto';
import type { SpotUserTradeDto } from '../spot-user-trades';

/** Response bodies of the spot order routes (docs/spot.md), for the API reference. */
export const spotOrderDtoSchema = dtoSchema(
  'SpotOrder',
  Joi.object<SpotOrderDto, true>({
    id: integer(),
    clientOrderId: Joi.string().allow(null),
    currencyPairCode: Joi.string(),
    side: Joi.string().valid('buy', 'sell'),
    type: Joi.string().valid('limit', 'market'),
    price: Joi.number().allow(null).description('null for a market order'),
    amount: Joi.number().allow(null).description('Base amount; null for a market buy, which spends quoteAmount'),
    filled: Joi.number().description('Base amount filled'),
    filledQuote: Joi.number().description('Quote amount filled'),
    fee: Joi.number().description('In the currency received'),
    status: Joi.string()
      .valid('open', 'partiallyFilled', 'filled', 'cancelled', 'expired')
      .description('expired: ended by self-trade prevention, or the killed rest of a market order'),
    postOnly: Joi.boolean(),
    selfTradePrevention: Joi.string().valid(...STP_MODES),
    createTimestamp: isoTimestamp(),
    updateTimestamp: isoTimestamp(),
  }),
);

export const pagedSpotOrdersDtoSchema = pagedSchema('SpotOrders', spotOrderDtoSchema);

export const cancelledOrdersDtoSchema = dtoSchema(
  'CancelledOrders',
  Joi.object<{ cancelled: number[] }, true>({ cancelled: Joi.array().items(integer()).description('Ids of the orders cancelled') }),
);

export const spotUserTradeDtoSchema = dtoSchema(
  'SpotUserTrade',
  Joi.object<SpotUserTradeDto, true>({
    id: integer().description('The trade id'),
    orderId: integer().description("The caller's order that filled"),
    timestamp: isoTimestamp(),
    price: Joi.number(),
    amount: Joi.number(),
    currencyPairCode: Joi.string(),
    side: Joi.string().valid('buy', 'sell').description("The caller's side"),
    takerOrMaker: Joi.string().valid('taker', 'maker'),
    fee: Joi.number(),
    feeCurrencyCode: Joi.string().description('The currency received'),
  }),
);
