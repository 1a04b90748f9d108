import { Router } from 'express';
import Joi from 'joi';
import type { MarketKind } from '../../domain/market';
import { DEFAULT_CANDLES, MAX_CANDLES, type CandleService } from '../candle.service';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import { candlesQuery } from './market-data.schema';
import { candleDtoSchema } from './market-data-dto.schema';

const doc = routeDocs('Futures market data');

interface CandlesParams {
  DateFrom?: Date;
  DateTo?: Date;
  CurrencyPair?: string;
  CandleTimePeriod: number;
  Kind?: MarketKind;
}

/** Public exchange data (the exchange-data routes, docs/market-data.md#candles). */
export function exchangeDataRoutes(candles: CandleService): Router {
  const r = Router();
  const candlesDoc = doc({
    summary: 'Candles of a pair, oldest first (the exchange-data routes, docs/market-data.md#candles)',
    description: `The futures market of CurrencyPair when there is one, else its spot market (Kind says which); every futures pair when CurrencyPair is omitted. Without DateFrom the latest ${DEFAULT_CANDLES} periods, at most ${MAX_CANDLES} a request; periods without trades are left out.`,
    response: Joi.array().items(candleDtoSchema),
  });
  r.get('/api/futures/exchange-data/candles', candlesDoc, validate({ query: candlesQuery }), async (_req, res) => {
    const q = valid<CandlesParams>(res, 'query');
    res.json(
      await candles.query({
        currencyPair: q.CurrencyPair,
        kind: q.Kind,
        candleTimePeriod: q.CandleTimePeriod,
        dateFrom: q.DateFrom,
        dateTo: q.DateTo,
      }),
    );
  });
  return r;
}
