import Joi from 'joi';
import type { Currency, Pair } from '../../domain/market';
import { dtoSchema, integer } from '../../platform/http/response.schema';
import type { SpotPairDto } from '../market.service';

/** Response bodies of the markets routes, for the API reference (docs/api-contract.md#operator-routes). */
export const currencyDtoSchema = dtoSchema(
  'Currency',
  Joi.object<Currency, true>({ code: Joi.string(), name: Joi.string(), decimals: integer().min(0) }),
);

const fee = () => Joi.number().min(0).max(1).description('A fraction: 0.001 is 0.1 %');

export const spotPairDtoSchema = dtoSchema(
  'SpotPair',
  Joi.object<SpotPairDto, true>({
    currencyPairCode: Joi.string().description('BASE_QUOTE'),
    baseCurrencyCode: Joi.string(),
    quoteCurrencyCode: Joi.string(),
    digitsPrice: integer(),
    digitsAmount: integer(),
    minBaseAmount: Joi.number(),
    minQuoteAmount: Joi.number(),
    makerFee: fee(),
    takerFee: fee(),
  }),
);

/** A pair as created by an operator; the futures fields only on futures pairs. */
export const pairDtoSchema = dtoSchema(
  'Pair',
  Joi.object<Pair, true>({
    id: integer(),
    kind: Joi.string().valid('spot', 'futures'),
    code: Joi.string().description('BASE_QUOTE'),
    baseCurrencyCode: Joi.string(),
    quoteCurrencyCode: Joi.string(),
    digitsPrice: integer(),
    digitsAmount: integer(),
    minBaseAmount: Joi.number(),
    minQuoteAmount: Joi.number(),
    makerFee: fee(),
    takerFee: fee(),
    isActive: Joi.boolean(),
    baseDecimals: integer(),
    quoteDecimals: integer(),
    contractValue: Joi.number().optional(),
    lotSize: Joi.number().optional(),
    maxLeverage: integer().optional(),
    maintenanceMarginRate: Joi.number().optional(),
    engineShard: integer().min(0).optional().description('The engine shard that runs the market (absent: 0)'),
  }),
);
