import BigNumber from 'bignumber.js';
import { decimal, fromMinor } from '../domain/decimal';
import type { Pair } from '../domain/market';

/** A candle as lua/market-data/applyCandleTrades-3.lua stores it: engine units as decimal strings. */
export interface StoredCandle {
  o: string;
  c: string;
  h: string;
  l: string;
  /** base volume, lots */
  v: string;
  /** quote volume, ticks x lots */
  q: string;
  n: string;
}

/** OpenAPI `Candle`. */
export interface CandleDto {
  currencyPairCode: string;
  openPrice: number;
  closePrice: number;
  maxPrice: number;
  minPrice: number;
  candleTimePeriod: number;
  volume: number;
  volumeBase: number;
  openTimestamp: string;
  closeTimestamp: string;
}

/**
 * Volumes in pair units: a futures lot is `contractValue` of base, so both volumes scale by it
 * (1 for spot). closeTimestamp is the next period boundary, where the next candle opens.
 */
export function candleDto(pair: Pair, period: number, openMs: number, c: StoredCandle): CandleDto {
  const cv = decimal(pair.contractValue ?? 1);
  const scaled = (minor: string, digits: number) =>
    new BigNumber(minor).shiftedBy(-digits).times(cv).toNumber();
  return {
    currencyPairCode: pair.code,
    openPrice: fromMinor(c.o, pair.digitsPrice),
    closePrice: fromMinor(c.c, pair.digitsPrice),
    maxPrice: fromMinor(c.h, pair.digitsPrice),
    minPrice: fromMinor(c.l, pair.digitsPrice),
    candleTimePeriod: period,
    volume: scaled(c.q, pair.digitsPrice + pair.digitsAmount),
    volumeBase: scaled(c.v, pair.digitsAmount),
    openTimestamp: new Date(openMs).toISOString(),
    closeTimestamp: new Date(openMs + period * 1000).toISOString(),
  };
}
