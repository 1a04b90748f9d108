import { Router } from 'express';
import Joi from 'joi';
import { badRequest } from '../../domain/errors';
import type { AggregatorAFeed, HistoricalTradesQuery } from '../aggregator-a.feed';
import type { AggregatorBFeed } from '../aggregator-b.feed';
import type { FuturesContractsFeed } from '../futures-contracts.feed';
import { AGGREGATOR_B_ROOT } from '../aggregator-b.feed';
import { routeDocs } from '../../platform/http/route-doc';
import { valid, validate } from '../../platform/http/validate';
import {
  aggregatorABookQuery,
  aggregatorBBookQuery,
  contractBookQuery,
  aggregatorBTradesQuery,
  historicalTradesQuery,
  marketPairParams,
} from './aggregator.schema';
import { linkNextPage } from './next-page-link';
import {
  aggregatorABookDtoSchema, aggregatorAPairDtoSchema, aggregatorATickerDtoSchema, aggregatorATradesDtoSchema,
  aggregatorBAssetsDtoSchema, aggregatorBBookDtoSchema, aggregatorBIndexDtoSchema, aggregatorBSummaryDtoSchema,
  aggregatorBTickerDtoSchema, aggregatorBTradesDtoSchema, contractBookDtoSchema, contractsADtoSchema, contractsBDtoSchema,
} from './aggregator-dto.schema';

const A = '/api/marketdata/aggregator-a';
const B = AGGREGATOR_B_ROOT;

const docA = routeDocs('Aggregator A feeds (CoinGecko standard)');
const docB = routeDocs('Aggregator B feeds (CoinMarketCap standard)');

/** The public market-data feeds of aggregators A and B, spot and futures (docs/aggregator-feeds.md). */
export function aggregatorRoutes(feeds: { a: AggregatorAFeed; b: AggregatorBFeed; futures: FuturesContractsFeed }): Router {
  const r = Router();
  const { a, b, futures } = feeds;

  r.get(`${A}/pairs`, docA({ summary: 'Spot pairs', response: Joi.array().items(aggregatorAPairDtoSchema) }), async (_req, res) => {
    res.json(await a.pairs());
  });
  const tickersDoc = docA({ summary: '24-hour tickers of every spot pair', response: Joi.array().items(aggregatorATickerDtoSchema) });
  r.get(`${A}/tickers`, tickersDoc, async (_req, res) => {
    res.json(await a.tickerList());
  });
  const bookADoc = docA({
    summary: 'Spot order book (depth 0: the full book, else half of it on each side)',
    response: aggregatorABookDtoSchema,
    errors: [404],
  });
  r.get(`${A}/orderbook`, bookADoc, validate({ query: aggregatorABookQuery }), async (_req, res) => {
    const q = valid<{ ticker_id?: string; depth: number }>(res, 'query');
    res.json(await a.orderbook(q.ticker_id, q.depth));
  });
  const tradesADoc = docA({
    summary: 'Spot trades, newest first, split by side',
    description:
      'start_time and end_time: ISO 8601, or Unix time (below 10^11 read as seconds, else milliseconds). limit counts both sides together; 0 is everything kept (TRADE_HISTORY_DAYS), 1000 trades a page: the `Link: rel="next"` header gives the next page (before_id), absent on the last.',
    response: aggregatorATradesDtoSchema,
    errors: [404],
  });
  r.get(`${A}/historical_trades`, tradesADoc, validate({ query: historicalTradesQuery }), async (req, res) => {
    const q = valid<HistoricalTradesQuery>(res, 'query');
    if (q.start_time !== undefined && q.end_time !== undefined && q.start_time > q.end_time) {
      throw badRequest('INVALID_DATE_RANGE', 'start_time must not be after end_time', [
        { path: 'start_time', message: 'must not be after end_time' },
      ]);
    }
    const page = await a.historicalTrades(q);
    linkNextPage(req, res, page.nextBeforeId);
    res.json(page.body);
  });

  r.get(B, docB({ summary: "The feed's endpoints and its pairs", response: aggregatorBIndexDtoSchema }), async (_req, res) => {
    res.json(await b.index());
  });
  const summaryDoc = docB({ summary: '24-hour summary of every spot pair', response: Joi.array().items(aggregatorBSummaryDtoSchema) });
  r.get(`${B}/summary`, summaryDoc, async (_req, res) => {
    res.json(await b.summary());
  });
  r.get(`${B}/asset`, docB({ summary: 'Every listed currency', response: aggregatorBAssetsDtoSchema }), async (_req, res) => {
    res.json(await b.assets());
  });
  r.get(`${B}/ticker`, docB({ summary: '24-hour ticker of every spot pair', response: aggregatorBTickerDtoSchema }), async (_req, res) => {
    res.json(await b.ticker());
  });
  const bookBDoc = docB({
    summary: 'Spot order book of one pair',
    description: 'level 1: best bid and ask only; 2 and 3: aggregated price levels. depth 0: the full book, else half of it on each side.',
    response: aggregatorBBookDtoSchema,
    errors: [404],
  });
  r.get(`${B}/orderbook/:market_pair`, bookBDoc, validate({ params: marketPairParams, query: aggregatorBBookQuery }), async (_req, res) => {
    const { market_pair } = valid<{ market_pair: string }>(res, 'params');
    const q = valid<{ depth: number; level: number }>(res, 'query');
    res.json(await b.orderbook(market_pair, q.depth, q.level));
  });
  const tradesBDoc = docB({
    summary: 'Spot trades of one pair in the last 24 hours, newest first',
    description: '1000 trades a page: the `Link: rel="next"` header gives the next page (before_id), absent on the last.',
    response: aggregatorBTradesDtoSchema,
    errors: [404],
  });
  r.get(`${B}/trades/:market_pair`, tradesBDoc, validate({ params: marketPairParams, query: aggregatorBTradesQuery }), async (req, res) => {
    const { market_pair } = valid<{ market_pair: string }>(res, 'params');
    const { before_id } = valid<{ before_id?: number }>(res, 'query');
    const page = await b.trades(market_pair, before_id);
    linkNextPage(req, res, page.nextBeforeId);
    res.json(page.body);
  });

  // OpenAPI `ContractRecordA`/`B` for both, each with what its own standard adds (A: CoinGecko, B: CoinMarketCap)
  const contractsADoc = docA({ summary: 'Futures contracts (OpenAPI `ContractRecordA`/`B` and the standard\'s fields)', response: contractsADtoSchema });
  r.get('/api/external-providers/aggregator-a/contracts', contractsADoc, async (_req, res) => {
    res.json(await futures.contractsA());
  });
  const contractsBDoc = docB({ summary: 'Futures contracts (OpenAPI `ContractRecordA`/`B` and the standard\'s fields)', response: contractsBDtoSchema });
  r.get('/api/external-providers/aggregator-b/contracts', contractsBDoc, async (_req, res) => {
    res.json(await futures.contractsB());
  });
  for (const [provider, doc] of [['aggregator-a', docA], ['aggregator-b', docB]] as const) {
    const base = `/api/external-providers/${provider}`;
    const bookDoc = doc({ summary: 'Futures order book of one pair (OpenAPI `ContractBook`)', response: contractBookDtoSchema, errors: [404] });
    r.get(`${base}/orderbook`, bookDoc, validate({ query: contractBookQuery }), async (_req, res) => {
      const q = valid<{ ticker_id?: string; market_pair?: string; symbol?: string; depth: number }>(res, 'query');
      res.json(await futures.orderbook((q.ticker_id ?? q.market_pair ?? q.symbol) as string, q.depth));
    });
  }
  return r;
}
