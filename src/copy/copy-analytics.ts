import BigNumber from 'bignumber.js';
import { fromMinor, fromMinorInt } from '../domain/decimal';
import { unrealizedMinor } from '../futures';
import type { AccountOrder, AccountTradingStats } from '../futures';

export interface PairAnalytics {
  trades: number;
  pnl: number;
  volume: number;
}

/** What the copy-trading analytics say about one futures account's trading (docs/copy-trading.md). */
export interface TradingAnalytics {
  /** realized + unrealized pnl, net of trading fees and funding, minor units */
  pnl: BigNumber;
  upnl: BigNumber;
  funding: BigNumber;
  totalTrades: number;
  tradingDays: number;
  dailyPnl: Record<string, number>;
  currencyAnalytics: Record<string, PairAnalytics>;
  maxDrawdownPercent: number;
  todayPnlPercent: number;
}

const day = (ms: string | number) => new Date(Number(ms)).toISOString().slice(0, 10);
const zero = () => new BigNumber(0);

/** A percentage rounded to 4 places; 0 when the base is not positive. */
export function percent(num: BigNumber, den: BigNumber): number {
  return den.gt(0) ? num.div(den).times(100).decimalPlaces(4, BigNumber.ROUND_HALF_UP).toNumber() : 0;
}

/**
 * Analytics of an account from the aggregates the engine keeps (FuturesAccountStats) and its open
 * positions, O(days + open positions). A position's realized pnl, fees and funding count on the day
 * it closed; an open position's fees, funding and unrealized pnl count today. A trade is one fill
 * of an order: the opening fill and the closing fill of a position are two. Volume is the quote
 * notional of both. Daily equity runs from `initialEquity` through each day's pnl; the drawdown is
 * the deepest fall from a running peak of that series, in percent of the peak.
 */
export function tradingAnalytics(
  s: AccountTradingStats,
  open: AccountOrder[],
  initialEquity: BigNumber,
  decimals: number,
  now = Date.now(),
): TradingAnalytics {
  const today = day(now);
  let upnl = zero();
  const pairUpnl = new Map<string, BigNumber>();
  for (const { h, params, mark, pair } of open) {
    if (h.status !== '50' || !(Number(h.filled) > 0)) continue;
    const u = unrealizedMinor(h, params, mark);
    upnl = upnl.plus(u);
    pairUpnl.set(pair.code, (pairUpnl.get(pair.code) ?? zero()).plus(u));
  }
  // the series in bigint: integers of minor units, hundreds of days per profile on every page
  const daily = new Map(s.closedDaily);
  if (s.openCount > 0) daily.set(today, (daily.get(today) ?? 0n) + BigInt(s.openNet.plus(upnl).toFixed(0)));
  const dailyPnl: Record<string, number> = {};
  const initial = BigInt(initialEquity.toFixed(0));
  let equity = initial;
  let peak = initial;
  // the deepest fall so far as the fraction ddNum / ddDen, compared by cross-multiplying
  let ddNum = 0n;
  let ddDen = 1n;
  let beforeToday = initial;
  for (const d of [...daily.keys()].sort()) {
    const v = daily.get(d) as bigint;
    dailyPnl[d] = fromMinorInt(v, decimals);
    if (d === today) beforeToday = equity;
    equity += v;
    if (equity > peak) peak = equity;
    if (peak > 0n && (peak - equity) * ddDen > ddNum * peak) {
      ddNum = peak - equity;
      ddDen = peak;
    }
  }
  const maxDd = new BigNumber(ddNum.toString()).div(ddDen.toString());
  const currencyAnalytics: Record<string, PairAnalytics> = {};
  for (const [code, p] of s.pairs) {
    currencyAnalytics[code] = {
      trades: p.trades,
      pnl: fromMinor(p.net.plus(pairUpnl.get(code) ?? 0).toFixed(0), decimals),
      volume: fromMinor(p.volume.toFixed(0), decimals),
    };
  }
  return {
    pnl: s.net.plus(upnl),
    upnl,
    funding: s.funding,
    totalTrades: s.trades,
    tradingDays: s.tradingDays,
    dailyPnl,
    currencyAnalytics,
    maxDrawdownPercent: maxDd.times(100).decimalPlaces(4, BigNumber.ROUND_HALF_UP).toNumber(),
    todayPnlPercent: percent(new BigNumber((daily.get(today) ?? 0n).toString()), new BigNumber(beforeToday.toString())),
  };
}

/** Risk score 1-10: one step per 5 % of max drawdown, 1 below 5 %, 10 from 45 %. */
export function riskScore(maxDrawdownPercent: number): number {
  return Math.min(10, Math.max(1, Math.floor(maxDrawdownPercent / 5) + 1));
}
