import { unifiedCryptoassetId } from './unified-cryptoasset-id';

/**
 * Stablecoins the feeds count one for one as US dollars, by CoinMarketCap id (so every listed code
 * of the same asset counts: USDT, USDT.TRC20, ...): Tether (825) and USD Coin (3408).
 */
const USD_PEGGED_UCIDS = new Set([825, 3408]);

/** Whether one unit of `code` is taken as one US dollar: `USD` itself or a known USD stablecoin. */
export function isUsdPegged(code: string): boolean {
  if (code === 'USD') return true;
  const ucid = unifiedCryptoassetId(code);
  return ucid !== undefined && USD_PEGGED_UCIDS.has(ucid);
}
