import Joi from 'joi';
import { CANDLE_PERIODS } from '../../domain/candle';
import { dtoSchema, integer, isoTimestamp } from '../../platform/http/response.schema';
import type { CandleDto } from '../candle-dto';
import type { BookLevelDto, OrderBookDto, SpotTradeDto } from '../market-data.service';

/** Response bodies of the market-data routes, for the API reference. */
export const bookLevelDtoSchema = dtoSchema(
  'BookLevel',
  Joi.object<BookLevelDto, true>({ price: Joi.number(), quantity: Joi.number().description('Summed over the orders at this price') }),
);

export const orderBookDtoSchema = dtoSchema(
  'OrderBook',
  Joi.object<OrderBookDto, true>({
    currencyPairCode: Joi.string(),
    seq: integer().description("The market's book sequence: the websocket's updates continue from it"),
    asks: Joi.array().items(bookLevelDtoSchema).description('Best (lowest) first'),
    bids: Joi.array().items(bookLevelDtoSchema).description('Best (highest) first'),
  }),
);

export const spotTradeDtoSchema = dtoSchema(
  'SpotTrade',
  Joi.object<SpotTradeDto, true>({
    id: integer(),
    timestamp: isoTimestamp(),
    price: Joi.number(),
    amount: Joi.number(),
    currencyPairCode: Joi.string(),
    side: Joi.string().valid('buy', 'sell').description("The taker's side"),
  }),
);

/** OpenAPI `Candle` */
export const candleDtoSchema = dtoSchema(
  'Candle',
  Joi.object<CandleDto, true>({
    currencyPairCode: Joi.string(),
    openPrice: Joi.number(),
    closePrice: Joi.number(),
    maxPrice: Joi.number(),
    minPrice: Joi.number(),
    candleTimePeriod: integer()
      .valid(...CANDLE_PERIODS)
      .description('Seconds'),
    volume: Joi.number().description('Quote volume'),
    volumeBase: Joi.number().description('Base volume'),
    openTimestamp: isoTimestamp(),
    closeTimestamp: isoTimestamp().description('Where the next candle opens'),
  }),
);
