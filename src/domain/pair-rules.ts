import { decimal, feeRatePpm } from './decimal';
import { AppError, badRequest } from './errors';
import type { Currency, Pair } from './market';

/** What an operator gives for a new pair: everything but what the engine derives. */
export type PairRequest = Omit<Pair, 'id' | 'code' | 'isActive' | 'baseDecimals' | 'quoteDecimals'>;

/**
 * The invariants of a pair, whoever creates it (admin endpoint, MARKETS_FILE): the first one broken,
 * as the error to answer, or null. Shapes and ranges are the schema's job; these relate the fields.
 */
export function pairRuleViolation(req: PairRequest, base: Currency, quote: Currency): AppError | null {
  // Exactness: a fill of ticks x lots must be a whole number of minor units of both currencies.
  if (quote.decimals < req.digitsPrice + req.digitsAmount || base.decimals < req.digitsAmount) {
    return badRequest(
      'PAIR_DIGITS_EXCEED_CURRENCY',
      `digitsPrice + digitsAmount must not exceed ${quote.code} decimals (${quote.decimals}), ` +
        `and digitsAmount must not exceed ${base.code} decimals (${base.decimals})`,
    );
  }
  for (const [name, rate] of [['makerFee', req.makerFee], ['takerFee', req.takerFee]] as const) {
    if (!decimal(rate).shiftedBy(6).isInteger() || feeRatePpm(rate) > 1_000_000) {
      return badRequest('INVALID_FEE', `${name} must be a fraction in steps of 0.000001`, [
        { path: name, message: 'whole parts per million, at most 1' },
      ]);
    }
  }
  return null;
}
