import type { SpotPairDto } from '../markets';
import type { ApiClient } from './api-client';

/** One market as the demo trades it, read from the public pair listings. */
export interface DemoMarket {
  kind: 'spot' | 'futures';
  code: string;
  base: string;
  quote: string;
  digitsPrice: number;
  digitsAmount: number;
  /** Smallest amount step: 10^-digitsAmount for spot, the lot size for futures. */
  step: number;
  minAmount: number;
  minNotional: number;
}


/** OpenAPI `FuturesPairInfo` spells the code field with a Cyrillic first letter (U+0441). */
const FUTURES_CODE = '\u0441urrencyPairCode';
type FuturesPairDto = Record<string, unknown> & {
  isActive: boolean;
  basePricePrecision: number;
  quantityPrecision: number;
  lotSize: number;
};

/** Futures minimum notional: the listing does not carry it, so the demo stays above a safe 10. */
const FUTURES_MIN_NOTIONAL = 10;

export async function loadMarkets(api: ApiClient): Promise<DemoMarket[]> {
  const [spot, futures] = await Promise.all([
    api.get<SpotPairDto[]>('/api/currencies/pairs'),
    api.get<FuturesPairDto[]>('/api/futures/exchange-data/pairs'),
  ]);
  const out: DemoMarket[] = spot.map((p) => ({
    kind: 'spot',
    code: p.currencyPairCode,
    base: p.baseCurrencyCode,
    quote: p.quoteCurrencyCode,
    digitsPrice: p.digitsPrice,
    digitsAmount: p.digitsAmount,
    step: 10 ** -p.digitsAmount,
    minAmount: p.minBaseAmount,
    minNotional: p.minQuoteAmount,
  }));
  for (const p of futures) {
    if (!p.isActive) continue;
    const code = String(p[FUTURES_CODE]);
    const [base, quote] = code.split('_');
    const step = p.lotSize > 0 ? p.lotSize : 10 ** -p.quantityPrecision;
    out.push({
      kind: 'futures',
      code,
      base,
      quote,
      digitsPrice: p.basePricePrecision,
      digitsAmount: p.quantityPrecision,
      step,
      minAmount: step,
      minNotional: FUTURES_MIN_NOTIONAL,
    });
  }
  return out;
}

/** A price on the market's tick grid. */
export function roundPrice(m: DemoMarket, price: number): number {
  return Number(price.toFixed(m.digitsPrice));
}

/** An amount worth about `notional` of quote at `price`: on the step grid, above both minimums. */
export function amountFor(m: DemoMarket, notional: number, price: number): number {
  const wanted = Math.max(notional, m.minNotional * 1.5) / price;
  const steps = Math.max(Math.ceil(m.minAmount / m.step), Math.round(wanted / m.step));
  return Number((steps * m.step).toFixed(m.digitsAmount));
}

/** A user id the API accepts (letters, digits, _ and -) naming the market and the bot's role. */
export function botUserId(m: DemoMarket, role: string): string {
  return `demo-${m.kind}-${m.code.replace(/[^A-Za-z0-9_-]/g, '-')}-${role}`.slice(0, 64);
}
