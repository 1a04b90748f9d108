import BigNumber from 'bignumber.js';
import { fromMinor } from '../domain/decimal';
import type { AccountState, AccountTradingStats } from '../futures';
import { percent, riskScore, tradingAnalytics, type PairAnalytics } from './copy-analytics';
import { iso, isoOrNull, type CopyDeps } from './copy-deps';
import type { MasterRecord, SlaveRecord, SubscriptionRecord } from './copy-store';

/** OpenAPI `CopyMasterAccount`, plus currencyAnalytics (docs/copy-trading.md). */
export interface CopyMasterAccountDto {
  id: number;
  avatarBlobId: string | null;
  risk: number;
  rank: number;
  name: string;
  strategyName: string;
  strategyDescription: string;
  futuresAccountId: number;
  futuresAccountName: string;
  leverage: number;
  currencyCode: string;
  slaveIncomePercentage: number;
  commissionRate: number;
  hashtags: string[];
  /** The links given at creation (null when none). */
  socialAUrl: string | null;
  socialBUrl: string | null;
  socialCUrl: string | null;
  socialDUrl: string | null;
  createdAt: string;
  closedAt: string | null;
  totalPnl: number;
  totalPnlPercent: number;
  todayPnlPercent: number;
  followersEquity: number;
  subscribersCount: number;
  status: string;
  globalRank: number;
  tradingDays: number;
  totalTrades: number;
  maxDrawdownPercent: number;
  balance: number;
  equity: number;
  usedMargin: number;
  totalCommissions: number;
  totalProfitShared: number;
  dailyPnl: Record<string, number>;
  currencyAnalytics: Record<string, PairAnalytics>;
}

/** OpenAPI `CopySlaveAccount` */
export interface CopySlaveAccountDto {
  id: number;
  futuresAccountId: number;
  leverage: number;
  currencyCode: string;
  name: string;
  futuresAccountName: string;
  openPositionsCount: number;
  activeSubscriptionsCount: number;
}

/** OpenAPI `CopyFollowingHistory` */
export interface CopyFollowingHistoryDto {
  id: number;
  masterName: string;
  avatarBlobId: string | null;
  masterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  currencyCode: string;
  totalProfit: number;
  totalProfitPercent: number;
  openingDate: string;
  closingDate: string | null;
  initialEquity: number;
  settledEquity: number;
  commission: number;
  reason: string | null;
  isActive: boolean;
}

/** OpenAPI `SlaveAnalytics` */
export interface SlaveAnalyticsDto {
  copySlaveFuturesAccountId: number;
  copyMasterFuturesAccountId: number;
  masterName: string;
  currencyCode: string;
  createTimestamp: string;
  deactivatedAt: string | null;
  isActive: boolean;
  deactivationReason: string | null;
  initialEquity: number;
  totalSlaveProfit: number;
  copyMasterProfit: number;
  currentPeriodSlaveProfit: number;
  totalPnl: number;
  totalPnlPercent: number;
  unrealizedPnl: number;
  totalCommissions: number;
  totalFunding: number;
  tradingDays: number;
  totalTrades: number;
  dailyPnl: Record<string, number>;
  currencyAnalytics: Record<string, PairAnalytics>;
}

const HASHTAG = /#([\p{L}\p{N}_]+)/gu;
/** Minor units (fractions of a unit round towards zero) as a JSON number of a currency with `decimals`. */
const moneyIn = (decimals: number) => (v: BigNumber | string) =>
  fromMinor(new BigNumber(v).integerValue(BigNumber.ROUND_DOWN).toFixed(0), decimals);
const sum = (xs: BigNumber[]) => xs.reduce((a, b) => a.plus(b), new BigNumber(0));

/** Read models of copy trading, computed from the records and the futures engine's state. */
export class CopyViews {
  constructor(private readonly d: CopyDeps) {}

  /**
   * Profiles of `records`, in order, read in O(days + open positions + subscriptions) each, never
   * over the history: trading figures from the engine's aggregates plus the open positions' pnl at
   * mark; `rank` = place on the leaderboard's default order (0 when not open), `globalRank` = place
   * by pnl among all masters (both from the rankings the engine keeps).
   */
  async masters(records: MasterRecord[]): Promise<CopyMasterAccountDto[]> {
    const ids = records.map((m) => m.id);
    const [stats, ranks, globalRanks] = await Promise.all([
      this.d.stats.read(ids),
      this.d.stats.places('roi', ids),
      this.d.stats.places('all', ids),
    ]);
    const marks = new Map<string, string | null>();
    return Promise.all(records.map((m, i) => this.master(m, stats[i], ranks[i], globalRanks[i], marks)));
  }

  private async master(
    m: MasterRecord,
    stats: AccountTradingStats,
    rank: number,
    globalRank: number,
    marks: Map<string, string | null>,
  ): Promise<CopyMasterAccountDto> {
    const state = (await this.d.reader.state(m.id, marks, 'open')) as AccountState;
    const initial = new BigNumber(m.initial);
    const a = tradingAnalytics(stats, state.orders, initial, state.decimals);
    const subs = await this.d.store.masterSubscriptions(m.id);
    const ledgers = await Promise.all(subs.map((s) => this.d.store.ledger(s.id)));
    const active = subs.filter((s) => s.active === '1');
    const followers = await Promise.all(active.map((s) => this.d.reader.state(s.acct, marks, 'open')));
    const money = moneyIn(state.decimals);
    return {
      id: Number(m.id),
      avatarBlobId: null,
      risk: riskScore(a.maxDrawdownPercent),
      rank: m.status === 'Active' ? rank : 0,
      name: m.name,
      strategyName: m.strategyName,
      strategyDescription: m.strategyDescription,
      futuresAccountId: Number(m.id),
      futuresAccountName: state.name,
      leverage: state.leverage,
      currencyCode: m.currency,
      slaveIncomePercentage: Number(m.slaveIncomePercentage),
      commissionRate: Number(m.commissionRate),
      hashtags: [...new Set([...m.strategyDescription.matchAll(HASHTAG)].map((x) => x[1]))],
      socialAUrl: m.socialAUrl || null,
      socialBUrl: m.socialBUrl || null,
      socialCUrl: m.socialCUrl || null,
      socialDUrl: m.socialDUrl || null,
      createdAt: iso(m.cts),
      closedAt: isoOrNull(m.closedAt),
      totalPnl: money(a.pnl),
      totalPnlPercent: percent(a.pnl, initial),
      todayPnlPercent: a.todayPnlPercent,
      followersEquity: money(sum(followers.map((f) => f?.equity ?? new BigNumber(0)))),
      subscribersCount: active.length,
      status: m.status,
      globalRank,
      tradingDays: a.tradingDays,
      totalTrades: a.totalTrades,
      maxDrawdownPercent: a.maxDrawdownPercent,
      balance: money(state.free.plus(state.locked)),
      equity: money(state.equity),
      usedMargin: money(state.locked),
      totalCommissions: money(sum(ledgers.map((l) => new BigNumber(l.commission)))),
      totalProfitShared: money(sum(ledgers.map((l) => new BigNumber(l.shared)))),
      dailyPnl: a.dailyPnl,
      currencyAnalytics: a.currencyAnalytics,
    };
  }

  async slave(s: SlaveRecord): Promise<CopySlaveAccountDto> {
    const acct = await this.d.reader.state(s.id);
    const subs = await this.d.store.slaveSubscriptions(s.id);
    const states = await Promise.all(subs.map((x) => this.d.reader.state(x.acct, undefined, 'open')));
    const open = states.reduce((n, st) => n + (st?.orders.filter((o) => o.h.status === '50').length ?? 0), 0);
    return {
      id: Number(s.id),
      futuresAccountId: Number(s.id),
      leverage: Number(s.leverage),
      currencyCode: s.currency,
      name: s.name,
      futuresAccountName: acct?.name ?? s.name,
      openPositionsCount: open,
      activeSubscriptionsCount: subs.filter((x) => x.active === '1').length,
    };
  }

  /**
   * A subscription's money: equity of its account now (active) or at finish, and its profit =
   * equity − what the slave put in, net of every fee and share paid.
   */
  async subscriptionMoney(s: SubscriptionRecord) {
    const ledger = await this.d.store.ledger(s.id);
    const state = (await this.d.reader.state(s.acct, undefined, 'open')) as AccountState;
    const live = s.state !== 'Finished';
    const equity = live ? state.equity : new BigNumber(s.settledEquity);
    const profit = live ? state.equity.minus(ledger.netIn) : new BigNumber(s.profit);
    return { ledger, state, equity, profit };
  }

  async subscription(s: SubscriptionRecord): Promise<CopyFollowingHistoryDto> {
    const master = await this.d.store.master(s.master);
    const { ledger, state, equity, profit } = await this.subscriptionMoney(s);
    const money = moneyIn(state.decimals);
    return {
      id: Number(s.id),
      masterName: master?.name ?? '',
      avatarBlobId: null,
      masterFuturesAccountId: Number(s.master),
      copySlaveFuturesAccountId: Number(s.slave),
      currencyCode: s.currency,
      totalProfit: money(profit),
      totalProfitPercent: percent(profit, new BigNumber(s.initial)),
      openingDate: iso(s.opened),
      closingDate: isoOrNull(s.closed),
      initialEquity: money(s.initial),
      settledEquity: money(equity),
      commission: money(new BigNumber(ledger.commission).plus(ledger.shared)),
      reason: s.reason || null,
      isActive: s.active === '1',
    };
  }

  async slaveAnalytics(s: SubscriptionRecord): Promise<SlaveAnalyticsDto> {
    const master = await this.d.store.master(s.master);
    const { ledger, state, profit } = await this.subscriptionMoney(s);
    const initial = new BigNumber(s.initial);
    const [stats] = await this.d.stats.read([s.acct]);
    const a = tradingAnalytics(stats, state.orders, initial, state.decimals);
    const money = moneyIn(state.decimals);
    return {
      copySlaveFuturesAccountId: Number(s.slave),
      copyMasterFuturesAccountId: Number(s.master),
      masterName: master?.name ?? '',
      currencyCode: s.currency,
      createTimestamp: iso(s.opened),
      deactivatedAt: isoOrNull(s.closed),
      isActive: s.active === '1',
      deactivationReason: s.reason || null,
      initialEquity: money(initial),
      totalSlaveProfit: money(profit),
      copyMasterProfit: money(ledger.shared),
      currentPeriodSlaveProfit: money(profit.minus(ledger.hwm)),
      totalPnl: money(a.pnl),
      totalPnlPercent: percent(a.pnl, initial),
      unrealizedPnl: money(a.upnl),
      totalCommissions: money(ledger.commission),
      totalFunding: money(a.funding),
      tradingDays: a.tradingDays,
      totalTrades: a.totalTrades,
      dailyPnl: a.dailyPnl,
      currencyAnalytics: a.currencyAnalytics,
    };
  }
}
