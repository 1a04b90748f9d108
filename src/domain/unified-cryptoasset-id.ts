/**
 * CoinMarketCap's Unified Cryptoasset IDs of the assets this exchange is known to list, keyed by
 * the exact currency code (codes are opaque, order-book rule 8, docs/api-contract.md#order-book-rules: a code for the same asset on another
 * chain is listed by its own code). An asset missing here has no UCID and the feeds omit it.
 */
const UCID: Record<string, number> = {
  BTC: 1,
  LTC: 2,
  XRP: 52,
  DOGE: 74,
  USDT: 825,
  'USDT.TRC20': 825,
  'USDT.ERC20': 825,
  ETH: 1027,
  BNB: 1839,
  TRX: 1958,
  ADA: 2010,
  USDC: 3408,
  SOL: 5426,
};

export function unifiedCryptoassetId(code: string): number | undefined {
  return Object.hasOwn(UCID, code) ? UCID[code] : undefined;
}
