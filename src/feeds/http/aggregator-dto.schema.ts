import Joi from 'joi';
import { bookLevelDtoSchema } from '../../market-data';
import { dtoSchema, integer } from '../../platform/http/response.schema';
import type { AggregatorABook, AggregatorAPair, AggregatorATicker, AggregatorATrade } from '../aggregator-a.feed';
import type { AggregatorBAsset, AggregatorBBook, AggregatorBSummary, AggregatorBTicker, AggregatorBTrade } from '../aggregator-b.feed';
import type { ContractBook, ContractRecord, ContractRecordA, ContractRecordB } from '../futures-contracts.feed';

/** Response bodies of the aggregator feeds (docs/aggregator-feeds.md), for the API reference. */

/** CoinGecko carries decimals as strings. */
const decimalString = () => Joi.string().pattern(/^-?\d+(\.\d+)?$/);
const unixMs = () => integer().description('Unix time, milliseconds');

export const aggregatorAPairDtoSchema = dtoSchema(
  'AggregatorAPair',
  Joi.object<AggregatorAPair, true>({ ticker_id: Joi.string(), base: Joi.string(), target: Joi.string(), pool_id: Joi.string() }),
);

export const aggregatorATickerDtoSchema = dtoSchema(
  'AggregatorATicker',
  Joi.object<AggregatorATicker, true>({
    ticker_id: Joi.string(),
    base_currency: Joi.string(),
    target_currency: Joi.string(),
    pool_id: Joi.string(),
    last_price: decimalString(),
    base_volume: decimalString().description('24 hours'),
    target_volume: decimalString().description('24 hours'),
    bid: decimalString(),
    ask: decimalString(),
    high: decimalString(),
    low: decimalString(),
  }),
);

const stringLevel = () => Joi.array().ordered(decimalString(), decimalString()).description('[price, quantity]');

const aggregatorABook = dtoSchema(
  'AggregatorABook',
  Joi.object<AggregatorABook, true>({
    ticker_id: Joi.string(),
    timestamp: unixMs(),
    bids: Joi.array().items(stringLevel()),
    asks: Joi.array().items(stringLevel()),
  }),
);
export const aggregatorABookDtoSchema = Joi.alternatives()
  .try(aggregatorABook, Joi.array().items(aggregatorABook))
  .description("One pair's book with ticker_id, every spot pair's without");

const aggregatorATrade = dtoSchema(
  'AggregatorATrade',
  Joi.object<AggregatorATrade, true>({
    trade_id: integer(),
    price: decimalString(),
    base_volume: decimalString(),
    target_volume: decimalString(),
    trade_timestamp: unixMs(),
    type: Joi.string().valid('buy', 'sell'),
    ticker_id: Joi.string().optional().description('Only when the request named no ticker_id'),
  }),
);
export const aggregatorATradesDtoSchema = dtoSchema(
  'AggregatorATrades',
  Joi.object<{ buy: AggregatorATrade[]; sell: AggregatorATrade[] }, true>({
    buy: Joi.array().items(aggregatorATrade),
    sell: Joi.array().items(aggregatorATrade),
  }),
);

export const aggregatorBIndexDtoSchema = dtoSchema(
  'AggregatorBIndex',
  Joi.object<{ endpoints: Record<string, string>; trading_pairs: string[] }, true>({
    endpoints: Joi.object().pattern(Joi.string(), Joi.string()).description('Path of each endpoint'),
    trading_pairs: Joi.array().items(Joi.string()),
  }),
);

export const aggregatorBSummaryDtoSchema = dtoSchema(
  'AggregatorBSummary',
  Joi.object<AggregatorBSummary, true>({
    trading_pairs: Joi.string(),
    base_currency: Joi.string(),
    quote_currency: Joi.string(),
    last_price: Joi.number(),
    lowest_ask: Joi.number(),
    highest_bid: Joi.number(),
    base_volume: Joi.number(),
    quote_volume: Joi.number(),
    price_change_percent_24h: Joi.number(),
    highest_price_24h: Joi.number(),
    lowest_price_24h: Joi.number(),
  }),
);

export const aggregatorBAssetsDtoSchema = Joi.object()
  .pattern(
    Joi.string(),
    dtoSchema(
      'AggregatorBAsset',
      Joi.object<AggregatorBAsset, true>({
        name: Joi.string(),
        unified_cryptoasset_id: integer().optional(),
        can_withdraw: Joi.boolean(),
        can_deposit: Joi.boolean(),
        min_withdraw: Joi.number(),
        max_withdraw: Joi.number(),
        maker_fee: Joi.number(),
        taker_fee: Joi.number(),
      }),
    ),
  )
  .description('By currency code');

export const aggregatorBTickerDtoSchema = Joi.object()
  .pattern(
    Joi.string(),
    dtoSchema(
      'AggregatorBTicker',
      Joi.object<AggregatorBTicker, true>({
        base_id: integer().optional(),
        quote_id: integer().optional(),
        last_price: Joi.number(),
        base_volume: Joi.number(),
        quote_volume: Joi.number(),
        isFrozen: integer().valid(0, 1),
      }),
    ),
  )
  .description('By pair code');

const numberLevel = () => Joi.array().ordered(Joi.number(), Joi.number()).description('[price, quantity]');

export const aggregatorBBookDtoSchema = dtoSchema(
  'AggregatorBBook',
  Joi.object<AggregatorBBook, true>({
    timestamp: unixMs(),
    bids: Joi.array().items(numberLevel()),
    asks: Joi.array().items(numberLevel()),
  }),
);

export const aggregatorBTradesDtoSchema = Joi.array().items(
  dtoSchema(
    'AggregatorBTrade',
    Joi.object<AggregatorBTrade, true>({
      trade_id: integer(),
      price: Joi.number(),
      base_volume: Joi.number(),
      quote_volume: Joi.number(),
      timestamp: unixMs(),
      type: Joi.string().valid('buy', 'sell'),
    }),
  ),
);

/** OpenAPI `ContractRecordA`/`B`, field for field. */
const contractKeys: Joi.StrictSchemaMap<ContractRecord> = {
  ticker_id: Joi.string(),
  base_currency: Joi.string(),
  target_currency: Joi.string(),
  last_price: Joi.number(),
  base_volume: Joi.number(),
  target_volume: Joi.number(),
  bid: Joi.number(),
  ask: Joi.number(),
  high: Joi.number(),
  low: Joi.number(),
  product_type: Joi.string(),
  open_interest: Joi.number(),
  index_price: Joi.number(),
  mark_price: Joi.number().description('Extension: the mark price (median of index-based prices and the last trade, docs/futures.md)'),
  index_currency: Joi.number().description("The quote currency's Unified Cryptoasset ID, 0 where it has none"),
  start_timestamp: Joi.number().allow(null),
  end_timestamp: Joi.number().allow(null),
  funding_rate: Joi.number(),
  next_funding_rate: Joi.number(),
  next_funding_rate_timestamp: unixMs(),
  contract_type: Joi.string(),
  contract_price: Joi.number(),
  contract_price_currency: Joi.string(),
};

const byPair = (record: Joi.ObjectSchema) =>
  Joi.object().pattern(Joi.string(), Joi.array().items(record)).description('By pair code: the contracts of that pair');

export const contractsADtoSchema = byPair(
  dtoSchema(
    'ContractRecordA',
    Joi.object<ContractRecordA, true>({
      ...contractKeys,
      open_interest_usd: Joi.number(),
      index_name: Joi.string(),
    }),
  ),
);

export const contractsBDtoSchema = byPair(
  dtoSchema(
    'ContractRecordB',
    Joi.object<ContractRecordB, true>({
      ...contractKeys,
      quote_currency: Joi.string(),
      quote_volume: Joi.number(),
      USD_volume: Joi.number(),
      open_interest_usd: Joi.number(),
      maker_fee: Joi.number(),
      taker_fee: Joi.number(),
    }),
  ),
);

/** OpenAPI `ContractBook` */
export const contractBookDtoSchema = dtoSchema(
  'ContractBook',
  Joi.object<ContractBook, true>({
    ticker_id: Joi.string(),
    timestamp: unixMs(),
    bids: Joi.array().items(bookLevelDtoSchema),
    asks: Joi.array().items(bookLevelDtoSchema),
  }),
);
