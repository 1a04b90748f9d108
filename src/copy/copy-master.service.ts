import BigNumber from 'bignumber.js';
import { minorString, toMinorDown } from '../domain/decimal';
import { conflict, forbidden, notFound, rejected, type AppError } from '../domain/errors';
import { pageOf, type PagedResult, type PageRequest } from '../domain/paging';
import type { CopyBoard, MasterFilter, SortPreset } from './copy-board';
import { COPY_SHARD, type CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import type { MasterRecord } from './copy-store';
import type { CopyMasterAccountDto, CopySlaveAccountDto, CopyViews } from './copy-views';

/** The copy master request (OpenAPI) */
export interface CreateMasterRequest {
  name: string;
  strategyName: string;
  strategyDescription?: string;
  leverage: number;
  currencyCode: string;
  slaveIncomePercentage: number;
  commissionRate: number;
  amount: number;
  socialAUrl?: string | null;
  socialBUrl?: string | null;
  socialCUrl?: string | null;
  socialDUrl?: string | null;
}

export { SORT_PRESETS, type MasterFilter, type SortPreset } from './copy-board';

type Dto = CopyMasterAccountDto;
const SORTS: Record<SortPreset, (a: Dto, b: Dto) => number> = {
  roi: (a, b) => b.totalPnlPercent - a.totalPnlPercent,
  pnl: (a, b) => b.totalPnl - a.totalPnl,
  followers: (a, b) => b.subscribersCount - a.subscribersCount,
  aum: (a, b) => b.followersEquity - a.followersEquity,
  drawdown: (a, b) => a.maxDrawdownPercent - b.maxDrawdownPercent,
  tradingDays: (a, b) => b.tradingDays - a.tradingDays,
  newest: (a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt),
};
const RANGES: [keyof MasterFilter, keyof MasterFilter, keyof Dto][] = [
  ['roiFrom', 'roiTo', 'totalPnlPercent'],
  ['followersFrom', 'followersTo', 'subscribersCount'],
  ['daysFrom', 'daysTo', 'tradingDays'],
  ['aumFrom', 'aumTo', 'followersEquity'],
  ['drawdownFrom', 'drawdownTo', 'maxDrawdownPercent'],
];

function select(all: Dto[], f: MasterFilter): Dto[] {
  const inRange = (m: Dto) =>
    RANGES.every(([from, to, field]) => {
      const v = m[field] as number;
      const lo = f[from] as number | undefined;
      const hi = f[to] as number | undefined;
      return (lo === undefined || v >= lo) && (hi === undefined || v <= hi);
    });
  return all.filter(inRange).sort((a, b) => SORTS[f.sortPreset](a, b) || a.id - b.id);
}

/** The copy master routes (docs/copy-trading.md): master strategies. A master is a futures account of its own; its id is that account's id. */
export class CopyMasterService {
  constructor(
    private readonly d: CopyDeps,
    private readonly views: CopyViews,
    private readonly settlement: CopySettlementService,
    private readonly board: CopyBoard,
  ) {}

  /** Opens a futures account for the strategy and moves `amount` into it from the owner's wallet. */
  async create(userId: string, req: CreateMasterRequest): Promise<Dto> {
    const currency = await this.d.markets.getCurrency(req.currencyCode);
    if (!currency) throw rejected('UNSUPPORTED_MARGIN_CURRENCY', `No futures pair settles in ${req.currencyCode}`);
    const minor = toMinorDown(req.amount, currency.decimals);
    if (minor.lte(0)) throw rejected('AMOUNT_TOO_SMALL', `amount rounds to zero at ${currency.decimals} decimals`);
    // the capital is checked before the account is made, on shard 0's wallet, where futures draw from
    await this.d.futures.accounts.fundWallet(userId, req.currencyCode, minorString(minor)).catch((err: AppError) => {
      if (err.code !== 'INSUFFICIENT_BALANCE') throw err;
    });
    const wallet = new BigNumber((await this.d.redis.hget(this.d.keys.walletAvailable(userId), req.currencyCode)) ?? 0);
    if (wallet.lt(minor)) throw rejected('INSUFFICIENT_BALANCE', 'Not enough available balance in the wallet');
    const acct = await this.d.futures.accounts.create(userId, {
      name: req.strategyName, currencyCode: req.currencyCode, leverage: req.leverage,
    }, 'master', COPY_SHARD);
    await this.d.futures.engine.transfer(userId, null, String(acct.id), req.currencyCode, minorString(minor));
    const now = Date.now();
    const m: MasterRecord = {
      id: String(acct.id), user: userId, name: req.name, strategyName: req.strategyName,
      strategyDescription: req.strategyDescription ?? '', leverage: String(req.leverage), currency: req.currencyCode,
      slaveIncomePercentage: String(req.slaveIncomePercentage), commissionRate: String(req.commissionRate),
      socialAUrl: req.socialAUrl ?? '', socialBUrl: req.socialBUrl ?? '', socialCUrl: req.socialCUrl ?? '',
      socialDUrl: req.socialDUrl ?? '', initial: minorString(minor), cts: String(now), closedAt: '', status: 'Active',
      dec: String(currency.decimals),
    };
    await this.d.store.saveMaster(m);
    await this.board.list(m, currency.decimals);
    return this.analytics(m.id);
  }

  /** The caller's strategies: open ones, or with onlyClosed the closed ones. */
  async listOwn(userId: string, f: MasterFilter): Promise<Dto[]> {
    const want = f.onlyClosed ? 'Closed' : 'Active';
    const mine = (await this.d.store.userMasters(userId)).filter((m) => m.status === want);
    return select(await this.views.masters(mine), f);
  }

  /** A page of the leaderboard (CopyBoard): the page's masters are all that is read. */
  async leaderboard(f: MasterFilter, page: PageRequest): Promise<PagedResult<Dto>> {
    const { ids, total } = await this.board.page(f, page);
    // a master between beginMasterClose and its delisting is left out
    const open = (await this.d.store.masters(ids)).filter((m) => m.status === 'Active');
    return pageOf(await this.views.masters(open), total, page);
  }

  async analytics(id: string | number): Promise<Dto> {
    const [dto] = await this.views.masters([await this.existing(id)]);
    return dto;
  }

  /** The slaves copying the master now; the owner's only. */
  async slaves(userId: string, id: string | number): Promise<CopySlaveAccountDto[]> {
    const m = await this.owned(userId, id);
    const out: CopySlaveAccountDto[] = [];
    for (const s of await this.d.store.masterSubscriptions(m.id)) {
      if (s.active !== '1') continue;
      const slave = await this.d.store.slave(s.slave);
      if (slave) out.push(await this.views.slave(slave));
    }
    return out.sort((a, b) => a.id - b.id);
  }

  /**
   * Closes the strategy as a durable state machine (Active -> Closing -> Closed): beginMasterClose
   * (409 when not Active; no new followers from here), its positions close at market, every
   * subscription finishes MASTER_CLOSED with its positions closed and settled first, then
   * completeMasterClose returns the account's free balance to the owner's wallet and sets closedAt.
   * A crash between the steps is resumed by the worker (CopySettlementService.resume).
   */
  async close(userId: string, id: string | number): Promise<Dto> {
    const m = await this.owned(userId, id);
    if (m.status !== 'Active') throw conflict('MASTER_CLOSED', 'The strategy is closed already');
    await this.settlement.closeMaster(m, userId);
    return this.analytics(m.id);
  }

  async existing(id: string | number): Promise<MasterRecord> {
    const m = await this.d.store.master(id);
    if (!m) throw notFound('MASTER_NOT_FOUND', 'Copy master not found');
    return m;
  }

  private async owned(userId: string, id: string | number): Promise<MasterRecord> {
    const m = await this.existing(id);
    if (m.user !== userId) throw forbidden('NOT_MASTER_OWNER', 'Only the owner of the master may do this');
    return m;
  }
}
