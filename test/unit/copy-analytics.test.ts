import BigNumber from 'bignumber.js';
import { futuresParams } from '../../src/domain/futures';
import type { Pair } from '../../src/domain/market';
import type { AccountOrder } from '../../src/futures';
import { riskScore } from '../../src/copy/copy-analytics';
import { analyticsOfOrders as tradingAnalytics } from '../support/analytics-oracle';

// BTC_USDT futures: 1 price digit, 4 amount digits, USDT 8 decimals: ns = 1e8 / 1e5 = 1000 minor units per tick x lot
const pair = {
  id: 1, kind: 'futures', code: 'BTC_USDT', baseCurrencyCode: 'BTC', quoteCurrencyCode: 'USDT', digitsPrice: 1, digitsAmount: 4,
  minBaseAmount: 0.0001, minQuoteAmount: 5, makerFee: 0.0002, takerFee: 0.0005, isActive: true, baseDecimals: 8, quoteDecimals: 8,
  contractValue: 1, lotSize: 0.0001, maxLeverage: 100, maintenanceMarginRate: 0.005,
} as Pair;
const params = futuresParams(pair);
const USDT = 1e8;
const ms = (iso: string) => String(Date.parse(iso));

/** A closed long of 1 BTC entered at 100 with `pnl` realized and `fee` paid, opened and closed on the days given. */
function closed(id: number, opened: string, closedAt: string, pnl: number, fee = 0): AccountOrder {
  return {
    h: {
      id: String(id), side: 'buy', status: '20', filled: '10000', openQty: '0', cost: '0', ecost: String(1000 * 10000),
      rpnl: String(pnl * USDT), fee: String(fee * USDT), funding: '0', cts: ms(opened), uts: ms(closedAt),
    },
    pair, params, mark: null,
  };
}

describe('copy trading analytics', () => {
  const now = Date.parse('2026-01-05T12:00:00Z');

  it('books pnl on closing days, counts fills and days, and measures the drawdown of daily equity', () => {
    const orders = [
      closed(1, '2026-01-01T10:00:00Z', '2026-01-01T11:00:00Z', 100, 1), // +99 -> 199
      closed(2, '2026-01-02T10:00:00Z', '2026-01-03T11:00:00Z', -30), // -30 -> 169, 15.08 % under 199
      closed(3, '2026-01-05T10:00:00Z', '2026-01-05T11:00:00Z', 80), // +80 today
    ];
    const a = tradingAnalytics(orders, new BigNumber(100 * USDT), 8, now);
    expect(a.dailyPnl).toEqual({ '2026-01-01': 99, '2026-01-03': -30, '2026-01-05': 80 });
    expect(a.pnl.toNumber()).toBe(149 * USDT);
    expect(a.totalTrades).toBe(6);
    expect(a.tradingDays).toBe(4);
    expect(a.maxDrawdownPercent).toBeCloseTo((30 / 199) * 100, 4);
    expect(a.todayPnlPercent).toBeCloseTo((80 / 169) * 100, 4);
    // entries at 100 each; exits at 200, 70 and 180
    expect(a.currencyAnalytics).toEqual({ BTC_USDT: { trades: 6, pnl: 149, volume: 300 + 200 + 70 + 180 } });
    expect(riskScore(a.maxDrawdownPercent)).toBe(4);
  });

  it('counts an open position\'s unrealized pnl at mark today; an empty account is flat and risk 1', () => {
    const open: AccountOrder = {
      h: { id: '9', side: 'sell', status: '50', filled: '10000', openQty: '10000', cost: String(1000 * 10000), ecost: String(1000 * 10000), rpnl: '0', fee: '0', funding: '0', cts: ms('2026-01-05T01:00:00Z'), uts: ms('2026-01-05T01:00:00Z') },
      pair, params, mark: '900',
    };
    const a = tradingAnalytics([open], new BigNumber(1000 * USDT), 8, now);
    expect(a.upnl.toNumber()).toBe(10 * USDT); // short from 100 to 90
    expect(a.dailyPnl).toEqual({ '2026-01-05': 10 });
    expect(a.totalTrades).toBe(1);
    const flat = tradingAnalytics([], new BigNumber(0), 8, now);
    expect(flat).toMatchObject({ totalTrades: 0, tradingDays: 0, dailyPnl: {}, maxDrawdownPercent: 0, todayPnlPercent: 0 });
    expect([0, 4.99, 5, 44.9, 45, 99].map(riskScore)).toEqual([1, 1, 2, 9, 10, 10]);
  });
});
