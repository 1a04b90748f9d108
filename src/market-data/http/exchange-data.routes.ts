import { Router } from 'express';
import type { MarketKind } from '../../domain/market';
import type { CandleService } from '../candle.service';
import { valid, validate } from '../../platform/http/validate';
import { candlesQuery } from './market-data.schema';

interface CandlesParams {
  DateFrom?: Date;
  DateTo?: Date;
  CurrencyPair?: string;
  CandleTimePeriod: number;
  Kind?: MarketKind;
}

/** Public exchange data (SPEC 4.5). */
export function exchangeDataRoutes(candles: CandleService): Router {
  const r = Router();
  r.get('/api/futures/exchange-data/candles', validate({ query: candlesQuery }), async (_req, res) => {
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
