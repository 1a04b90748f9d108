import Joi from 'joi';

const pairCode = () => Joi.string().max(80);
/** The standards' depth: 0 (the default) is the full book, else half of it on each side. */
const depth = () => Joi.number().integer().min(0).max(10000).default(0);

/**
 * The contract types start_time and end_time as date-times; CoinGecko sends Unix timestamps. Both are
 * accepted and become ms: an ISO 8601 date-time, or an integer (below 10^11 read as seconds, else ms).
 */
const instant = () =>
  Joi.alternatives().try(
    Joi.number()
      .integer()
      .min(0)
      .custom((v: number) => (v < 1e11 ? v * 1000 : v)),
    Joi.date()
      .iso()
      .custom((d: Date) => d.getTime()),
  );

/** Our paging extension of the trade feeds: only trades with a smaller id (the next page's link carries it). */
const beforeId = () => Joi.number().integer().min(1);

export const aggregatorABookQuery = Joi.object({ ticker_id: pairCode(), depth: depth() });

export const historicalTradesQuery = Joi.object({
  ticker_id: pairCode(),
  type: Joi.string().valid('buy', 'sell'),
  limit: Joi.number().integer().min(0).max(10000).default(500),
  start_time: instant(),
  end_time: instant(),
  before_id: beforeId(),
});

/** B's trades come in pages: the next one from the `Link: rel="next"` header. */
export const aggregatorBTradesQuery = Joi.object({ before_id: beforeId() });

export const marketPairParams = Joi.object({ market_pair: pairCode().required() });

export const aggregatorBBookQuery = Joi.object({
  depth: depth(),
  level: Joi.number().integer().valid(1, 2, 3).default(2),
});

/** The contract names no pair parameter of the futures books: any one of these three. */
export const contractBookQuery = Joi.object({
  ticker_id: pairCode(),
  market_pair: pairCode(),
  symbol: pairCode(),
  depth: depth(),
}).xor('ticker_id', 'market_pair', 'symbol');
