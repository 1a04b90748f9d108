import { AppError, badRequest, notFound } from '../domain/errors';
import type { Pair } from '../domain/market';
import type { MarketStore } from './market-store';
import type { MarketKind } from '../platform/redis/keys';

/**
 * A pair that must exist. Named in a request body it is bad input (400 UNKNOWN_CURRENCY_PAIR);
 * named in a path it is a missing resource (404 PAIR_NOT_FOUND). Every use case asks here.
 */
export async function requirePair(
  markets: MarketStore,
  kind: MarketKind,
  code: string,
  namedIn: 'body' | 'path' = 'body',
): Promise<Pair> {
  const pair = await markets.getPair(kind, code);
  if (pair) return pair;
  const other: MarketKind = kind === 'spot' ? 'futures' : 'spot';
  const listedAs = (await markets.getPair(other, code)) ? other : undefined;
  throw unknownPair(code, { kind, namedIn, field: 'currencyPairCode', listedAs });
}

/**
 * The error for a pair code nobody listed, saying what to do: which status and why (a body field
 * is bad input, a path names a missing resource: docs/api-contract.md#errors), where the pairs are
 * listed, and the code meant when it was spelled `BTC/USDT`, `btc-usdt` or lower case.
 */
export function unknownPair(
  code: string,
  opts: { kind?: MarketKind; namedIn: 'body' | 'path' | 'query'; field: string; listedAs?: MarketKind },
): AppError {
  const what = opts.kind ? `${opts.kind} pair` : 'pair';
  const where =
    opts.namedIn === 'path'
      ? '404: the path names no listed market'
      : `400: ${opts.field} names no listed market`;
  const hints = [`${where}; GET /api/currencies/pairs and GET /api/futures/exchange-data/pairs list them`];
  const meant = meantPairCode(code);
  if (meant) hints.push(`pair codes are BASE_QUOTE: did you mean ${meant}?`);
  if (opts.listedAs) hints.push(`${code} is a ${opts.listedAs} pair`);
  const message = `Unknown ${what} ${code} (${hints.join('; ')})`;
  if (opts.namedIn === 'path') return notFound('PAIR_NOT_FOUND', message);
  return badRequest('UNKNOWN_CURRENCY_PAIR', message, [{ path: opts.field, message: `no such ${what}` }]);
}

/** `BTC/USDT`, `btc-usdt`, `BTC:USDT` or `btc_usdt` → `BTC_USDT`; undefined when the code is already in that form. */
export function meantPairCode(code: string): string | undefined {
  const m = /^([A-Za-z0-9][A-Za-z0-9.]*)\s*[/\-:_ ]\s*([A-Za-z0-9][A-Za-z0-9.]*)$/.exec(code);
  if (!m) return undefined;
  const meant = `${m[1].toUpperCase()}_${m[2].toUpperCase()}`;
  return meant === code ? undefined : meant;
}
