import { candleOpen } from '../../src/domain/candle';

export interface Fill {
  ts: number;
  price: number;
  qty: number;
}

/** The candles a plain reading of OpenAPI `Candle` gives for these fills (given in trade-id order). */
export function referenceCandles(
  pair: string,
  fills: Fill[],
  period: number,
  digits: { price: number; amount: number },
) {
  const byOpen = new Map<number, Fill[]>();
  for (const f of fills) {
    const t = candleOpen(f.ts, period);
    byOpen.set(t, [...(byOpen.get(t) ?? []), f]);
  }
  return [...byOpen.entries()]
    .sort(([a], [b]) => a - b)
    .map(([t, fs]) => ({
      currencyPairCode: pair,
      openPrice: fs[0].price,
      closePrice: fs[fs.length - 1].price,
      maxPrice: Math.max(...fs.map((f) => f.price)),
      minPrice: Math.min(...fs.map((f) => f.price)),
      candleTimePeriod: period,
      volume: Number(fs.reduce((s, f) => s + f.price * f.qty, 0).toFixed(digits.price + digits.amount)),
      volumeBase: Number(fs.reduce((s, f) => s + f.qty, 0).toFixed(digits.amount)),
      openTimestamp: new Date(t).toISOString(),
      closeTimestamp: new Date(t + period * 1000).toISOString(),
    }));
}
