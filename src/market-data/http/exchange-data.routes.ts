import { Router } from 'express';
import type { AppContext } from '../../transport/context';
import type { MarketKind } from '../../platform/redis/keys';
import { valid, validate } from '../../platform/http/validate';
import { candlesQuery } from './exchange-data.schema';

interface CandlesParams {
  DateFrom?: Date;
  DateTo?: Date;
  CurrencyPair?: string;
  CandleTimePeriod: number;
  Kind?: MarketKind;
}

/** Public exchange data (SPEC 4.5). */
export function exchangeDataRoutes(ctx: AppContext): Router {
  const r = Router();
  r.get('/api/futures/exchange-data/candles', validate({ query: candlesQuery }), async (_req, res) => {
    const q = valid<CandlesParams>(res, 'query');
    res.json(
      await ctx.candles.query({
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
