/**
 * The aggregator standards field by field the public reference aggregators.md; OpenAPI `ContractRecordA`/`B` and `ContractBook`
 * where they speak), as tables a test checks a response against: every field the standard lists
 * is present with its JSON type, and nothing else is (a misspelt name shows as both).
 *
 * Requirement: M mandatory, R recommended (the feeds always send these too), O may be absent
 * (a UCID the exchange does not know).
 */
export type Requirement = 'M' | 'R' | 'O';

/**
 * JSON types: `decimal-string` a plain decimal in a string (CoinGecko's samples), `ms` an integer
 * Unix time in milliseconds (13 digits), `flag` the integer 0 or 1, `levels` / `string-levels`
 * arrays of [price, quantity] numbers / decimal strings, `price-levels` OpenAPI `ContractBook`'s
 * {price, quantity} objects, `perpetual-time` null (a perpetual has no start or end).
 */
export type FieldType =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'decimal-string'
  | 'ms'
  | 'flag'
  | 'levels'
  | 'string-levels'
  | 'price-levels'
  | 'perpetual-time';

export type FieldTable = Record<string, [FieldType, Requirement]>;

const DECIMAL = /^-?\d+(\.\d+)?$/;

function isType(v: unknown, t: FieldType): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string' && v.length > 0;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'decimal-string':
      return typeof v === 'string' && DECIMAL.test(v);
    case 'ms':
      return Number.isInteger(v) && String(v).length === 13;
    case 'flag':
      return v === 0 || v === 1;
    case 'levels':
      return Array.isArray(v) && v.every((l) => Array.isArray(l) && l.length === 2 && l.every((x) => isType(x, 'number')));
    case 'string-levels':
      return Array.isArray(v) && v.every((l) => Array.isArray(l) && l.length === 2 && l.every((x) => isType(x, 'decimal-string')));
    case 'price-levels':
      return (
        Array.isArray(v) &&
        v.every((l) => l && Object.keys(l).sort().join() === 'price,quantity' && isType(l.price, 'number') && isType(l.quantity, 'number'))
      );
    case 'perpetual-time':
      return v === null;
  }
}

/** What is wrong with `record` against `table`: missing or mistyped fields, fields the table does not know. */
export function violations(record: Record<string, unknown>, table: FieldTable): string[] {
  const out: string[] = [];
  for (const [field, [type, req]] of Object.entries(table)) {
    if (!(field in record)) {
      if (req !== 'O') out.push(`${field}: missing`);
    } else if (!isType(record[field], type)) out.push(`${field}: ${JSON.stringify(record[field])} is not ${type}`);
  }
  for (const field of Object.keys(record)) if (!(field in table)) out.push(`${field}: not in the standard`);
  return out;
}

// ---- aggregator A: CoinGecko, spot (decimals as strings, as the standard's samples) ----

export const A_PAIR: FieldTable = {
  ticker_id: ['string', 'M'],
  base: ['string', 'M'],
  target: ['string', 'M'],
  pool_id: ['string', 'O'],
};

export const A_TICKER: FieldTable = {
  ticker_id: ['string', 'M'],
  base_currency: ['string', 'M'],
  target_currency: ['string', 'M'],
  pool_id: ['string', 'O'],
  last_price: ['decimal-string', 'M'],
  base_volume: ['decimal-string', 'M'],
  target_volume: ['decimal-string', 'M'],
  bid: ['decimal-string', 'R'],
  ask: ['decimal-string', 'R'],
  high: ['decimal-string', 'R'],
  low: ['decimal-string', 'R'],
};

export const A_BOOK: FieldTable = {
  ticker_id: ['string', 'M'],
  timestamp: ['ms', 'R'],
  bids: ['string-levels', 'M'],
  asks: ['string-levels', 'M'],
};

export const A_TRADE: FieldTable = {
  trade_id: ['integer', 'M'],
  price: ['decimal-string', 'M'],
  base_volume: ['decimal-string', 'M'],
  target_volume: ['decimal-string', 'M'],
  trade_timestamp: ['ms', 'M'],
  type: ['string', 'M'],
};

// ---- aggregator B: CoinMarketCap, spot (decimals as numbers) ----

export const B_SUMMARY: FieldTable = {
  trading_pairs: ['string', 'M'],
  base_currency: ['string', 'R'],
  quote_currency: ['string', 'R'],
  last_price: ['number', 'M'],
  lowest_ask: ['number', 'M'],
  highest_bid: ['number', 'M'],
  base_volume: ['number', 'M'],
  quote_volume: ['number', 'M'],
  price_change_percent_24h: ['number', 'M'],
  highest_price_24h: ['number', 'M'],
  lowest_price_24h: ['number', 'M'],
};

export const B_ASSET: FieldTable = {
  name: ['string', 'R'],
  unified_cryptoasset_id: ['integer', 'O'],
  can_withdraw: ['boolean', 'R'],
  can_deposit: ['boolean', 'R'],
  min_withdraw: ['number', 'R'],
  max_withdraw: ['number', 'R'],
  maker_fee: ['number', 'R'],
  taker_fee: ['number', 'R'],
};

export const B_TICKER: FieldTable = {
  base_id: ['integer', 'O'],
  quote_id: ['integer', 'O'],
  last_price: ['number', 'M'],
  base_volume: ['number', 'M'],
  quote_volume: ['number', 'M'],
  isFrozen: ['flag', 'R'],
};

export const B_BOOK: FieldTable = {
  timestamp: ['ms', 'M'],
  bids: ['levels', 'M'],
  asks: ['levels', 'M'],
};

export const B_TRADE: FieldTable = {
  trade_id: ['integer', 'M'],
  price: ['number', 'M'],
  base_volume: ['number', 'M'],
  quote_volume: ['number', 'M'],
  timestamp: ['ms', 'M'],
  type: ['string', 'M'],
};

// ---- futures: OpenAPI `ContractRecordA`/`B` for both, plus what each standard adds ----

/** OpenAPI `ContractRecordA`/`B` (numbers as JSON numbers); CoinGecko marks all of these mandatory when merged with contract_specs. */
const SPEC_CONTRACT: FieldTable = {
  ticker_id: ['string', 'M'],
  base_currency: ['string', 'M'],
  target_currency: ['string', 'M'],
  last_price: ['number', 'M'],
  base_volume: ['number', 'M'],
  target_volume: ['number', 'M'],
  bid: ['number', 'M'],
  ask: ['number', 'M'],
  high: ['number', 'M'],
  low: ['number', 'M'],
  product_type: ['string', 'M'],
  open_interest: ['number', 'M'],
  index_price: ['number', 'M'],
  // an extension of ours (docs/futures.md): the mark price positions are valued at, beside the index
  mark_price: ['number', 'O'],
  index_currency: ['integer', 'M'],
  start_timestamp: ['perpetual-time', 'M'],
  end_timestamp: ['perpetual-time', 'M'],
  funding_rate: ['number', 'M'],
  next_funding_rate: ['number', 'M'],
  next_funding_rate_timestamp: ['ms', 'M'],
  contract_type: ['string', 'M'],
  contract_price: ['number', 'M'],
  contract_price_currency: ['string', 'M'],
};

/** CoinGecko derivatives /contracts: open_interest_usd (mandatory in E1), index_name (mandatory merged). */
export const A_CONTRACT: FieldTable = {
  ...SPEC_CONTRACT,
  open_interest_usd: ['number', 'M'],
  index_name: ['string', 'M'],
};

/** CoinMarketCap derivatives B1 (+ B2 merged); creation/expiry only for expirable contracts, so absent here. */
export const B_CONTRACT: FieldTable = {
  ...SPEC_CONTRACT,
  quote_currency: ['string', 'M'],
  quote_volume: ['number', 'M'],
  USD_volume: ['number', 'R'],
  open_interest_usd: ['number', 'R'],
  maker_fee: ['number', 'R'],
  taker_fee: ['number', 'R'],
};

/** OpenAPI `ContractBook` plus the timestamp (CoinMarketCap B3: mandatory; CoinGecko: recommended). */
export const CONTRACT_BOOK: FieldTable = {
  ticker_id: ['string', 'M'],
  timestamp: ['ms', 'M'],
  bids: ['price-levels', 'M'],
  asks: ['price-levels', 'M'],
};
