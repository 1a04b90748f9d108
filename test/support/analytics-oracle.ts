import BigNumber from 'bignumber.js';
import { tradingAnalytics, type TradingAnalytics } from '../../src/copy/copy-analytics';
import type { AccountOrder, AccountTradingStats, PairTotals } from '../../src/futures';

const day = (ms: string | number) => new Date(Number(ms)).toISOString().slice(0, 10);
const big = (v: string | undefined) => new BigNumber(v || 0);

/**
 * The test oracle: the aggregates of docs/copy-trading.md folded over every order of an account, as
 * the service did before the engine kept them (lua/includes/futures/accountStats.lua keeps them
 * incrementally; the property test checks both agree). A filled order's net is rpnl − fee − funding;
 * a closed one (status 20) books it on the day of its last update, an open one today. A trade is a
 * fill: the opening and the closing fill of a position are two; volume is the quote notional of both.
 * Trading days are the days with a fill: the opening day, and the last update once something closed.
 */
export function statsOfOrders(orders: AccountOrder[]): AccountTradingStats {
  const s: AccountTradingStats = {
    net: big('0'), openNet: big('0'), openCount: 0, funding: big('0'), trades: 0, tradingDays: 0,
    closedDaily: new Map(), pairs: new Map(),
  };
  const days = new Set<string>();
  for (const { h, params, pair } of orders) {
    if (!(Number(h.filled) > 0)) continue;
    const net = big(h.rpnl).minus(big(h.fee)).minus(big(h.funding));
    const closedEntry = big(h.ecost).minus(big(h.cost)).times(params.ns);
    const entry = big(h.ecost).times(params.ns);
    const exit = closedEntry.gt(0) ? closedEntry.plus(h.side === 'buy' ? big(h.rpnl) : big(h.rpnl).negated()) : big('0');
    const n = closedEntry.gt(0) ? 2 : 1;
    if (h.status === '20') {
      const on = day(h.uts);
      s.closedDaily.set(on, (s.closedDaily.get(on) ?? 0n) + BigInt(net.toFixed(0)));
    } else {
      s.openNet = s.openNet.plus(net);
      s.openCount += 1;
    }
    days.add(day(h.cts));
    if (closedEntry.gt(0)) days.add(day(h.uts));
    const p: PairTotals = s.pairs.get(pair.code) ?? { trades: 0, net: big('0'), volume: big('0') };
    s.pairs.set(pair.code, { trades: p.trades + n, net: p.net.plus(net), volume: p.volume.plus(entry).plus(exit) });
    s.trades += n;
    s.net = s.net.plus(net);
    s.funding = s.funding.plus(big(h.funding));
  }
  s.tradingDays = days.size;
  return s;
}

/** The analytics over every order of the account (the full recompute). */
export function analyticsOfOrders(orders: AccountOrder[], initialEquity: BigNumber, decimals: number, now = Date.now()): TradingAnalytics {
  return tradingAnalytics(statsOfOrders(orders), orders.filter((o) => o.h.status === '50'), initialEquity, decimals, now);
}
