import BigNumber from 'bignumber.js';
import { fromMinor } from '../domain/decimal';
import type { FuturesParams } from '../domain/futures';
import type { Pair } from '../domain/market';

/** OpenAPI `FuturesOrder`: one futures order / position record. */
export interface FuturesOrderDto {
  id: number;
  clientOrderId: string | null;
  createTimestamp: string;
  updateTimestamp: string;
  price: number;
  amount: number;
  currencyPairCode: string;
  takeProfit: number;
  stopLoss: number;
  realizedPnl: number;
  leverage: number;
  isLong: boolean;
  isMarket: boolean;
  liquidationPrice: number;
  filled: number;
  fee: number;
  feeAsset: string;
  amountInPosition: number;
  futuresOrderStatus: number;
  fundingFee: number;
  initialMargin: number;
  currentMargin: number;
  unRealizedPnl: number;
  unRealizedPnlPercentage: number;
  totalPnlPercentage: number;
  roe: number;
  /** Extension of OpenAPI `FuturesOrder` (docs/futures.md "ADL"): 0-4, the position's fifth of its side's ADL queue, 4 first. */
  adlQuantile: number;
  /** Extension: the mark price the unrealized pnl is valued at; null before the market has one. */
  markPrice: number | null;
}

const iso = (ms: string) => new Date(Number(ms)).toISOString();
const pct = (num: BigNumber, den: BigNumber): number =>
  den.gt(0) ? num.div(den).times(100).decimalPlaces(4, BigNumber.ROUND_HALF_UP).toNumber() : 0;

/** Unrealized pnl of the open quantity at `markTicks`, in minor units of the margin currency. */
export function unrealizedMinor(h: Record<string, string>, params: FuturesParams, markTicks: string | null): BigNumber {
  const open = new BigNumber(h.openQty || 0);
  if (!markTicks || open.isZero()) return new BigNumber(0);
  const diff = new BigNumber(markTicks).times(open).minus(h.cost || 0).times(params.ns);
  return h.side === 'buy' ? diff : diff.negated();
}

/**
 * An engine order hash as the OpenAPI `FuturesOrder` record. `price` is the average entry once anything filled,
 * else the limit price (0 for a market order). TP, SL and liquidation price read 0 when unset.
 * Percentages: unRealizedPnlPercentage = upnl / entry notional of the open quantity; roe = upnl /
 * initial margin of the open quantity; totalPnlPercentage = (realized + unrealized − fees −
 * funding) / initial margin (docs/futures.md).
 */
export function futuresOrderDto(
  h: Record<string, string>,
  pair: Pair,
  params: FuturesParams,
  markTicks: string | null,
  adlQuantile = 0,
): FuturesOrderDto {
  const q = pair.quoteDecimals;
  const filled = new BigNumber(h.filled || 0);
  const entryTicks = filled.gt(0) ? new BigNumber(h.ecost).div(filled) : new BigNumber(h.price || 0);
  const upnl = unrealizedMinor(h, params, markTicks);
  const openNotional = new BigNumber(h.cost || 0).times(params.ns);
  const openInitialMargin = openNotional.div(h.lev).integerValue(BigNumber.ROUND_FLOOR);
  const total = new BigNumber(h.rpnl || 0).plus(upnl).minus(h.fee || 0).minus(h.funding || 0);
  return {
    id: Number(h.id),
    clientOrderId: h.clid ? h.clid : null,
    createTimestamp: iso(h.cts),
    updateTimestamp: iso(h.uts),
    price: entryTicks.shiftedBy(-pair.digitsPrice).decimalPlaces(pair.digitsPrice + 4).toNumber(),
    amount: fromMinor(h.amount, pair.digitsAmount),
    currencyPairCode: h.pair,
    takeProfit: fromMinor(h.tp, pair.digitsPrice),
    stopLoss: fromMinor(h.sl, pair.digitsPrice),
    realizedPnl: fromMinor(h.rpnl, q),
    leverage: Number(h.lev),
    isLong: h.side === 'buy',
    isMarket: h.isMarket === '1',
    liquidationPrice: fromMinor(h.liq, pair.digitsPrice),
    filled: fromMinor(h.filled, pair.digitsAmount),
    fee: fromMinor(h.fee, q),
    feeAsset: pair.quoteCurrencyCode,
    amountInPosition: fromMinor(h.openQty, pair.digitsAmount),
    futuresOrderStatus: Number(h.status),
    fundingFee: fromMinor(h.funding, q),
    initialMargin: fromMinor(h.imargin, q),
    currentMargin: fromMinor(h.margin, q),
    unRealizedPnl: fromMinor(upnl.toFixed(0), q),
    unRealizedPnlPercentage: pct(upnl, openNotional),
    totalPnlPercentage: pct(total, new BigNumber(h.imargin || 0)),
    roe: pct(upnl, openInitialMargin),
    adlQuantile,
    markPrice: markTicks === null ? null : fromMinor(markTicks, pair.digitsPrice),
  };
}
