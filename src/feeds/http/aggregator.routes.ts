import { Router } from 'express';
import { badRequest } from '../../domain/errors';
import type { AggregatorAFeed, HistoricalTradesQuery } from '../aggregator-a.feed';
import type { AggregatorBFeed } from '../aggregator-b.feed';
import type { FuturesContractsFeed } from '../futures-contracts.feed';
import { AGGREGATOR_B_ROOT } from '../aggregator-b.feed';
import { valid, validate } from '../../platform/http/validate';
import {
  aggregatorABookQuery,
  aggregatorBBookQuery,
  contractBookQuery,
  historicalTradesQuery,
  marketPairParams,
} from './aggregator.schema';

const A = '/api/marketdata/aggregator-a';
const B = AGGREGATOR_B_ROOT;

/** SPEC 4.6: the public market-data feeds of aggregators A and B, spot and futures (docs/aggregator-feeds.md). */
export function aggregatorRoutes(feeds: { a: AggregatorAFeed; b: AggregatorBFeed; futures: FuturesContractsFeed }): Router {
  const r = Router();
  const { a, b, futures } = feeds;

  r.get(`${A}/pairs`, async (_req, res) => {
    res.json(await a.pairs());
  });
  r.get(`${A}/tickers`, async (_req, res) => {
    res.json(await a.tickerList());
  });
  r.get(`${A}/orderbook`, validate({ query: aggregatorABookQuery }), async (_req, res) => {
    const q = valid<{ ticker_id?: string; depth: number }>(res, 'query');
    res.json(await a.orderbook(q.ticker_id, q.depth));
  });
  r.get(`${A}/historical_trades`, validate({ query: historicalTradesQuery }), async (_req, res) => {
    const q = valid<HistoricalTradesQuery>(res, 'query');
    if (q.start_time !== undefined && q.end_time !== undefined && q.start_time > q.end_time) {
      throw badRequest('INVALID_DATE_RANGE', 'start_time must not be after end_time', [
        { path: 'start_time', message: 'must not be after end_time' },
      ]);
    }
    res.json(await a.historicalTrades(q));
  });

  r.get(B, async (_req, res) => {
    res.json(await b.index());
  });
  r.get(`${B}/summary`, async (_req, res) => {
    res.json(await b.summary());
  });
  r.get(`${B}/asset`, async (_req, res) => {
    res.json(await b.assets());
  });
  r.get(`${B}/ticker`, async (_req, res) => {
    res.json(await b.ticker());
  });
  r.get(`${B}/orderbook/:market_pair`, validate({ params: marketPairParams, query: aggregatorBBookQuery }), async (_req, res) => {
    const { market_pair } = valid<{ market_pair: string }>(res, 'params');
    const q = valid<{ depth: number; level: number }>(res, 'query');
    res.json(await b.orderbook(market_pair, q.depth, q.level));
  });
  r.get(`${B}/trades/:market_pair`, validate({ params: marketPairParams }), async (_req, res) => {
    const { market_pair } = valid<{ market_pair: string }>(res, 'params');
    res.json(await b.trades(market_pair));
  });

  // SPEC 2.16 for both, each with what its own standard adds (A: CoinGecko, B: CoinMarketCap)
  r.get('/api/external-providers/aggregator-a/contracts', async (_req, res) => {
    res.json(await futures.contractsA());
  });
  r.get('/api/external-providers/aggregator-b/contracts', async (_req, res) => {
    res.json(await futures.contractsB());
  });
  for (const provider of ['aggregator-a', 'aggregator-b']) {
    const base = `/api/external-providers/${provider}`;
    r.get(`${base}/orderbook`, validate({ query: contractBookQuery }), async (_req, res) => {
      const q = valid<{ ticker_id?: string; market_pair?: string; symbol?: string; depth: number }>(res, 'query');
      res.json(await futures.orderbook((q.ticker_id ?? q.market_pair ?? q.symbol) as string, q.depth));
    });
  }
  return r;
}
