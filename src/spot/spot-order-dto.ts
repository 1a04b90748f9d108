import { fromMinor } from '../domain/decimal';
import type { Pair } from '../domain/market';
import { STP_FLAGS, type StpMode } from '../domain/order';

const STP_BY_FLAG = Object.fromEntries(Object.entries(STP_FLAGS).map(([k, v]) => [String(v), k])) as Record<
  string,
  StpMode
>;

export interface SpotOrderDto {
  id: number;
  clientOrderId: string | null;
  currencyPairCode: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price: number | null;
  amount: number | null;
  filled: number;
  filledQuote: number;
  fee: number;
  status: string;
  postOnly: boolean;
  selfTradePrevention: StpMode;
  createTimestamp: string;
  updateTimestamp: string;
}

const iso = (ms: string) => new Date(Number(ms)).toISOString();

/** An order hash from the engine as docs/spot.md's spot order; the fee is in the currency received. */
export function spotOrderDto(h: Record<string, string>, pair: Pair): SpotOrderDto {
  const feeDigits = h.side === 'buy' ? pair.baseDecimals : pair.quoteDecimals;
  return {
    id: Number(h.id),
    clientOrderId: h.clid ? h.clid : null,
    currencyPairCode: h.pair,
    side: h.side as 'buy' | 'sell',
    type: h.type as 'limit' | 'market',
    price: h.price ? fromMinor(h.price, pair.digitsPrice) : null,
    amount: h.amount ? fromMinor(h.amount, pair.digitsAmount) : null,
    filled: fromMinor(h.filled, pair.digitsAmount),
    filledQuote: fromMinor(h.filledQuote, pair.quoteDecimals),
    fee: fromMinor(h.fee, feeDigits),
    status: h.status,
    postOnly: h.postOnly === '1',
    selfTradePrevention: STP_BY_FLAG[h.stp] ?? 'NONE',
    createTimestamp: iso(h.cts),
    updateTimestamp: iso(h.uts),
  };
}
