import { decimal, feeRatePpm, fitsEngine } from './decimal';
import { AppError, badRequest, rejected } from './errors';
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
  return futuresRuleViolation(req, quote);
}

/**
 * The pair checks of docs/futures.md#pair-checks-issue-10-finding-4 (422, the rule named): fees that never leave a maker short, a maximum
 * leverage whose initial margin stays above maintenance, and a contract the quote currency can count.
 */
function futuresRuleViolation(req: PairRequest, quote: Currency): AppError | null {
  if (!(req.makerFee >= 0 && req.makerFee <= req.takerFee)) {
    // a resting order reserves the taker fee: a higher maker fee would draw on money it never held
    return rejected('PAIR_FEES', `0 <= makerFee <= takerFee must hold (makerFee ${req.makerFee}, takerFee ${req.takerFee})`);
  }
  if (req.kind !== 'futures') return null;
  const lev = decimal(req.maxLeverage ?? 1);
  const mmr = decimal(req.maintenanceMarginRate ?? 0);
  if (!mmr.shiftedBy(6).isInteger() || !lev.times(mmr).lt(1)) {
    return rejected('PAIR_LEVERAGE_MARGIN',
      `maxLeverage x maintenanceMarginRate must be below 1, the rate in whole parts per million ` +
        `(${lev.toFixed()} x ${mmr.toFixed()}): at the maximum leverage a position would start liquidated`);
  }
  // ns = contractValue x 10^(quote decimals - digitsPrice - digitsAmount): minor units per tick and lot
  const ns = decimal(req.contractValue ?? 0).shiftedBy(quote.decimals - req.digitsPrice - req.digitsAmount);
  if (!ns.isInteger() || ns.lt(1) || !fitsEngine(ns)) {
    return rejected('PAIR_CONTRACT_VALUE',
      `contractValue ${req.contractValue} at ${req.digitsPrice} price and ${req.digitsAmount} amount digits is not a ` +
        `whole number of ${quote.code} minor units (${quote.decimals} decimals)`);
  }
  return null;
}
