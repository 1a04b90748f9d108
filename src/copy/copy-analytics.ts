import BigNumber from 'bignumber.js';
import { fromMinor } from '../domain/decimal';
import { unrealizedMinor } from '../futures';
import type { AccountOrder } from '../futures';

export interface PairAnalytics {
  trades: number;
  pnl: number;
  volume: number;
}

/** What DESIGN 4's analytics say about one futures account's trading (docs/copy-trading.md). */
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
 * Analytics of an account's positions. A position's realized pnl, fees and funding count on the day
 * it closed; an open position's fees, funding and unrealized pnl count today. A trade is one fill
 * of an order: the opening fill and the closing fill of a position are two. Volume is the quote
 * notional of both. Daily equity runs from `initialEquity` through each day's pnl; the drawdown is
 * the deepest fall from a running peak of that series, in percent of the peak.
 */
export function tradingAnalytics(orders: AccountOrder[], initialEquity: BigNumber, decimals: number, now = Date.now()): TradingAnalytics {
  const today = day(now);
  const daily = new Map<string, BigNumber>();
  const pairs = new Map<string, { trades: number; pnl: BigNumber; volume: BigNumber }>();
  const days = new Set<string>();
  let pnl = zero();
  let upnl = zero();
  let funding = zero();
  let trades = 0;
  for (const { h, params, mark, pair } of orders) {
    if (!(Number(h.filled) > 0)) continue;
    const closed = h.status === '20';
    const u = h.status === '50' ? unrealizedMinor(h, params, mark) : zero();
    const net = new BigNumber(h.rpnl || 0).minus(h.fee || 0).minus(h.funding || 0).plus(u);
    const entry = new BigNumber(h.ecost || 0).times(params.ns);
    const closedEntry = new BigNumber(h.ecost || 0).minus(h.cost || 0).times(params.ns);
    const long = h.side === 'buy';
    const exit = closedEntry.gt(0) ? closedEntry.plus(long ? h.rpnl || 0 : new BigNumber(h.rpnl || 0).negated()) : zero();
    const n = closedEntry.gt(0) ? 2 : 1;
    const on = closed ? day(h.uts) : today;
    daily.set(on, (daily.get(on) ?? zero()).plus(net));
    days.add(day(h.cts));
    if (closedEntry.gt(0)) days.add(day(h.uts));
    const p = pairs.get(pair.code) ?? { trades: 0, pnl: zero(), volume: zero() };
    p.trades += n;
    p.pnl = p.pnl.plus(net);
    p.volume = p.volume.plus(entry).plus(exit);
    pairs.set(pair.code, p);
    trades += n;
    pnl = pnl.plus(net);
    upnl = upnl.plus(u);
    funding = funding.plus(h.funding || 0);
  }
  const dailyPnl: Record<string, number> = {};
  let equity = initialEquity;
  let peak = initialEquity;
  let maxDd = new BigNumber(0);
  let beforeToday = initialEquity;
  for (const d of [...daily.keys()].sort()) {
    const v = daily.get(d) as BigNumber;
    dailyPnl[d] = fromMinor(v.toFixed(0), decimals);
    if (d === today) beforeToday = equity;
    equity = equity.plus(v);
    if (equity.gt(peak)) peak = equity;
    if (peak.gt(0)) {
      const dd = peak.minus(equity).div(peak);
      if (dd.gt(maxDd)) maxDd = dd;
    }
  }
  const currencyAnalytics: Record<string, PairAnalytics> = {};
  for (const [code, p] of pairs) {
    currencyAnalytics[code] = {
      trades: p.trades,
      pnl: fromMinor(p.pnl.toFixed(0), decimals),
      volume: fromMinor(p.volume.toFixed(0), decimals),
    };
  }
  return {
    pnl,
    upnl,
    funding,
    totalTrades: trades,
    tradingDays: days.size,
    dailyPnl,
    currencyAnalytics,
    maxDrawdownPercent: maxDd.times(100).decimalPlaces(4, BigNumber.ROUND_HALF_UP).toNumber(),
    todayPnlPercent: percent(daily.get(today) ?? zero(), beforeToday),
  };
}

/** Risk score 1-10: one step per 5 % of max drawdown, 1 below 5 %, 10 from 45 %. */
export function riskScore(maxDrawdownPercent: number): number {
  return Math.min(10, Math.max(1, Math.floor(maxDrawdownPercent / 5) + 1));
}
