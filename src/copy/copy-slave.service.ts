import { fromMinor, minorString, toMinorDown } from '../domain/decimal';
import { conflict, notFound, rejected } from '../domain/errors';
import { paged, type PagedResult, type PageRequest } from '../domain/paging';
import { FinishReason, type CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import type { RiskArgs } from './copy-engine';
import type { MasterRecord, SlaveRecord, SubscriptionRecord } from './copy-store';
import type { CopyFollowingHistoryDto, CopySlaveAccountDto, CopyViews, SlaveAnalyticsDto } from './copy-views';

/** The subscription's slippage guard, percent (docs/copy-trading.md: default 0.5). */
export const maxSlippage = (sub: SubscriptionRecord) =>
  sub.maxSlippagePercent ? Number(sub.maxSlippagePercent) : DEFAULT_MAX_SLIPPAGE_PERCENT;

/** The copy slave request (OpenAPI) */
export interface CreateSlaveRequest {
  name: string;
  leverage: number;
  currencyCode: string;
}

/** Bodies of startMasterCopy / updateMasterCopySettings (margin) and finishMasterCopy (closeOrders). */
export interface CopySettingsRequest extends RiskControls {
  copyMasterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  margin: number;
}
/** Follower risk controls (docs/copy-trading.md); null clears one on update. */
export interface RiskControls {
  stopLossPercent?: number | null;
  takeProfitPercent?: number | null;
  maxSlippagePercent?: number | null;
}
export const DEFAULT_MAX_SLIPPAGE_PERCENT = 0.5;
export interface FinishCopyRequest {
  copyMasterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  closeOrders: boolean;
}

/** OpenAPI `CopySettings`, plus the follower's risk controls. */
export interface CopySettingsDto {
  copyMasterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  margin: number;
  stopLossPercent: number | null;
  takeProfitPercent: number | null;
  maxSlippagePercent: number;
}

/** The risk fields as the scripts take them: '' unchanged (none at start), 'none' cleared. */
function riskArgs(r: RiskControls): RiskArgs {
  const arg = (v: number | null | undefined) => (v === undefined ? '' : v === null ? 'none' : String(v));
  return { stopLossPercent: arg(r.stopLossPercent), takeProfitPercent: arg(r.takeProfitPercent), maxSlippagePercent: arg(r.maxSlippagePercent) };
}
const startArg = (v: string) => (v === 'none' ? '' : v);

/**
 * the copy slave routes (docs/copy-trading.md): slave accounts and their subscriptions. A slave is a futures account of its own (its id
 * is that account's id); each subscription gets a futures account too, holding the margin allocated
 * to it and the positions mirrored into it (docs/copy-trading.md).
 */
export class CopySlaveService {
  constructor(
    private readonly d: CopyDeps,
    private readonly views: CopyViews,
    private readonly settlement: CopySettlementService,
  ) {}

  /** The slave's account is registered at the follower's home, where its subscriptions start (its record on shard 0). */
  async create(userId: string, req: CreateSlaveRequest): Promise<CopySlaveAccountDto> {
    const acct = await this.d.futures.accounts.create(userId, req);
    const s: SlaveRecord = {
      id: String(acct.id), user: userId, name: req.name, leverage: String(req.leverage), currency: req.currencyCode,
      cts: String(Date.now()),
    };
    await this.d.store.saveSlave(s);
    return this.views.slave(s);
  }

  async list(userId: string): Promise<CopySlaveAccountDto[]> {
    return Promise.all((await this.d.store.userSlaves(userId)).map((s) => this.views.slave(s)));
  }

  /** Refused while a subscription is active; the account's free balance goes back to the wallet. */
  async delete(userId: string, id: string | number): Promise<CopySlaveAccountDto> {
    const s = await this.owned(userId, id);
    const subs = await this.d.store.slaveSubscriptions(s.id);
    if (subs.some((x) => x.active === '1')) {
      throw conflict('SLAVE_HAS_ACTIVE_SUBSCRIPTIONS', 'Finish the active subscriptions first');
    }
    // the account's free margin at the follower's home (what starts took there and finishes returned) comes back first
    await this.d.engine.gather(userId, s.id, s.currency);
    const dto = await this.views.slave(s);
    const state = await this.d.reader.state(s.id);
    if (state && state.free.gt(0)) {
      await this.d.futures.engine.transfer(userId, s.id, null, s.currency, state.free.toFixed(0));
    }
    await this.d.store.deleteSlave(s);
    return dto;
  }

  /**
   * Starts copying at the follower's home (docs/copy-trading.md, "Subscriptions at the follower's
   * home"): a futures account flagged for the copy is made first (empty: a crash after it leaves
   * nothing of value), then startCopy, one engine step at home, checks the slot and the free margin,
   * moves the margin in and writes the subscription with its ledger and the follower's indices (at
   * shard 0, the master's side too). At another home the link to the master follows
   * (CopySettlementService.completeStart, resumed by the worker after a crash).
   */
  async start(userId: string, req: CopySettingsRequest): Promise<CopyFollowingHistoryDto> {
    const slave = await this.owned(userId, req.copySlaveFuturesAccountId);
    const master = await this.d.store.master(req.copyMasterFuturesAccountId);
    if (!master) throw notFound('MASTER_NOT_FOUND', 'Copy master not found');
    if (master.user === userId) throw rejected('SELF_COPY', 'A master cannot be followed by its own owner');
    if (master.status !== 'Active') throw conflict('MASTER_CLOSED', 'The strategy is closed');
    if (master.currency !== slave.currency) {
      throw rejected('CURRENCY_MISMATCH', `The master trades in ${master.currency}, the slave holds ${slave.currency}`);
    }
    if (await this.d.store.activeSubscription(master.id, slave.id)) {
      throw conflict('SUBSCRIPTION_EXISTS', 'This slave already copies this master');
    }
    const margin = await this.marginMinor(slave.currency, req.margin);
    const home = await this.d.engine.homeOf(userId);
    const subId = await this.d.store.nextSubscriptionId(home);
    // registered at the follower's home (its id names it): the subscription's margin of record is there
    const acct = await this.d.futures.accounts.create(
      userId, { name: `copy #${subId} of ${master.name}`, currencyCode: slave.currency, leverage: Number(slave.leverage) }, 'copy', home,
    );
    const risk = riskArgs(req);
    const args = { stopLossPercent: startArg(risk.stopLossPercent), takeProfitPercent: startArg(risk.takeProfitPercent), maxSlippagePercent: startArg(risk.maxSlippagePercent) };
    await this.d.engine.start(userId, master, slave.id, String(acct.id), subId, margin, Date.now(), args);
    if (!(await this.settlement.completeStart(subId))) throw conflict('MASTER_CLOSED', 'The strategy is closed');
    return this.views.subscription((await this.d.store.subscription(subId)) as SubscriptionRecord);
  }

  /**
   * Sets the subscription's margin and risk controls (updateCopySettings, one engine step): the
   * difference moves from or back to the slave account's free balance, against the margin the
   * script finds, so concurrent updates serialize.
   */
  async update(userId: string, req: CopySettingsRequest): Promise<CopySettingsDto> {
    const sub = await this.active(userId, req.copyMasterFuturesAccountId, req.copySlaveFuturesAccountId);
    const margin = await this.marginMinor(sub.currency, req.margin);
    const master = (await this.d.store.master(sub.master)) as MasterRecord;
    await this.d.engine.update(userId, sub, master, margin, Date.now(), riskArgs(req));
    return this.settingsDto((await this.d.store.subscription(sub.id)) as SubscriptionRecord);
  }

  /** Finishing twice, or two finishes at once, is a 409 for all but the first (beginCopyFinish). */
  async finish(userId: string, req: FinishCopyRequest): Promise<CopyFollowingHistoryDto> {
    const sub = await this.active(userId, req.copyMasterFuturesAccountId, req.copySlaveFuturesAccountId);
    await this.settlement.finish(sub, userId, req.closeOrders, FinishReason.Slave);
    return this.views.subscription((await this.d.store.subscription(sub.id)) as SubscriptionRecord);
  }

  /** Subscriptions over all the caller's slaves: active ones, or with onlyHistory the finished ones. */
  async following(userId: string, onlyHistory: boolean, page: PageRequest): Promise<PagedResult<CopyFollowingHistoryDto>> {
    const all: SubscriptionRecord[] = [];
    for (const s of await this.d.store.userSlaves(userId)) all.push(...(await this.d.store.slaveSubscriptions(s.id)));
    all.sort((a, b) => Number(b.opened) - Number(a.opened) || Number(b.id) - Number(a.id));
    return this.pageOf(all.filter((s) => (s.active === '1') !== onlyHistory), page);
  }

  async subscriptions(userId: string, slaveId: string | number, active: boolean, page: PageRequest) {
    const slave = await this.owned(userId, slaveId);
    const subs = await this.d.store.slaveSubscriptions(slave.id);
    return this.pageOf(subs.filter((s) => (s.active === '1') === active), page);
  }

  async settings(userId: string, slaveId: string | number, masterId: string | number): Promise<CopySettingsDto> {
    return this.settingsDto(await this.subscriptionOf(userId, slaveId, masterId));
  }

  async analytics(userId: string, slaveId: string | number, masterId: string | number): Promise<SlaveAnalyticsDto> {
    return this.views.slaveAnalytics(await this.subscriptionOf(userId, slaveId, masterId));
  }

  /** The master fills the subscription did not mirror, oldest first (404 as settings). */
  async skips(userId: string, slaveId: string | number, masterId: string | number) {
    return this.d.store.skips((await this.subscriptionOf(userId, slaveId, masterId)).id);
  }

  /** The caller's slave or 404 (another user's slave is not found either). */
  async owned(userId: string, id: string | number): Promise<SlaveRecord> {
    const s = await this.d.store.slave(id);
    if (!s || s.user !== userId) throw notFound('SLAVE_NOT_FOUND', 'Copy slave not found');
    return s;
  }

  /** The slave's subscriptions, to one master when given, newest first (404 for a slave not the caller's). */
  async subscriptionsTo(userId: string, slaveId: string | number, masterId?: string | number): Promise<SubscriptionRecord[]> {
    const slave = await this.owned(userId, slaveId);
    const all = await this.d.store.slaveSubscriptions(slave.id);
    return masterId === undefined ? all : all.filter((s) => s.master === String(masterId));
  }

  /** The active subscription of the slave to the master, else its latest one; 404 when there is none. */
  private async subscriptionOf(userId: string, slaveId: string | number, masterId: string | number) {
    const subs = await this.subscriptionsTo(userId, slaveId, masterId);
    const sub = subs.find((s) => s.active === '1') ?? subs[0];
    if (!sub) throw notFound('SUBSCRIPTION_NOT_FOUND', 'Subscription not found');
    return sub;
  }

  /** 404 when the slave never copied the master, 409 when it did but that subscription is finished. */
  private async active(userId: string, masterId: number, slaveId: number): Promise<SubscriptionRecord> {
    const subs = await this.subscriptionsTo(userId, slaveId, masterId);
    const sub = subs.find((s) => s.active === '1');
    if (sub) return sub;
    if (subs.length) throw conflict('SUBSCRIPTION_FINISHED', 'The subscription is finished');
    throw notFound('SUBSCRIPTION_NOT_FOUND', 'Subscription not found');
  }

  private async marginMinor(currencyCode: string, margin: number): Promise<string> {
    const decimals = (await this.d.markets.getCurrency(currencyCode))?.decimals ?? 0;
    const minor = toMinorDown(margin, decimals);
    if (minor.lte(0)) throw rejected('AMOUNT_TOO_SMALL', `margin rounds to zero at ${decimals} decimals`);
    return minorString(minor);
  }

  private async settingsDto(sub: SubscriptionRecord): Promise<CopySettingsDto> {
    const decimals = (await this.d.markets.getCurrency(sub.currency))?.decimals ?? 0;
    return {
      copyMasterFuturesAccountId: Number(sub.master),
      copySlaveFuturesAccountId: Number(sub.slave),
      margin: fromMinor(sub.margin, decimals),
      stopLossPercent: sub.stopLossPercent ? Number(sub.stopLossPercent) : null,
      takeProfitPercent: sub.takeProfitPercent ? Number(sub.takeProfitPercent) : null,
      maxSlippagePercent: maxSlippage(sub),
    };
  }

  private async pageOf(subs: SubscriptionRecord[], page: PageRequest): Promise<PagedResult<CopyFollowingHistoryDto>> {
    const p = paged(subs, page);
    return { ...p, items: await Promise.all(p.items.map((s) => this.views.subscription(s))) };
  }
}
