import { badRequest, notFound } from '../domain/errors';
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
  if (namedIn === 'path') throw notFound('PAIR_NOT_FOUND', `Unknown ${kind} pair ${code}`);
  throw badRequest('UNKNOWN_CURRENCY_PAIR', `Unknown ${kind} pair ${code}`, [
    { path: 'currencyPairCode', message: `no such ${kind} pair` },
  ]);
}
