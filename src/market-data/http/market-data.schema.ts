import Joi from 'joi';
import { CANDLE_PERIODS } from '../../domain/candle';

/** Candles of the exchange-data routes (docs/market-data.md#candles); every parameter optional (defaults in docs/market-data.md). */
export const candlesQuery = Joi.object({
  DateFrom: Joi.date().iso(),
  DateTo: Joi.date().iso(),
  CurrencyPair: Joi.string().max(80),
  CandleTimePeriod: Joi.number()
    .integer()
    .valid(...CANDLE_PERIODS)
    .default(60),
  Kind: Joi.string().valid('spot', 'futures'),
});

export const bookQuery = Joi.object({ depth: Joi.number().integer().min(1).max(1000).default(100) });

export const tradesQuery = Joi.object({
  limit: Joi.number().integer().min(1).max(1000).default(100),
  beforeId: Joi.number().integer().min(1).description('Only trades with a smaller id: the next page starts below the last id read'),
});
