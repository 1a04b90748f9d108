/**
 * Candle periods of the exchange-data routes (docs/market-data.md#candles), in seconds. Every period, the month included (exactly 2,592,000 s,
 * as the contract defines it), is aligned to the Unix epoch, so a candle opens at a multiple of its length.
 */
export const CANDLE_PERIODS = [60, 180, 300, 900, 1800, 3600, 14400, 28800, 86400, 604800, 2592000] as const;
export type CandlePeriod = (typeof CANDLE_PERIODS)[number];

/** Open time (ms) of the candle of `periodSeconds` that holds the instant `ms`. */
export function candleOpen(ms: number, periodSeconds: number): number {
  const len = periodSeconds * 1000;
  return ms - (((ms % len) + len) % len);
}
