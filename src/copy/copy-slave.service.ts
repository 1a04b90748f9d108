import { fromMinor, minorString, toMinorDown } from '../domain/decimal';
import { conflict, notFound, rejected } from '../domain/errors';
import { paged, type PagedResult, type PageRequest } from '../domain/paging';
import { FinishReason, type CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import type { SlaveRecord, SubscriptionRecord } from './copy-store';
import type { CopyFollowingHistoryDto, CopySlaveAccountDto, CopyViews, SlaveAnalyticsDto } from './copy-views';

/** SPEC 2.5 */
export interface CreateSlaveRequest {
  name: string;
  leverage: number;
  currencyCode: string;
}

/** Bodies of startMasterCopy / updateMasterCopySettings (margin) and finishMasterCopy (closeOrders). */
export interface CopySettingsRequest {
  copyMasterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  margin: number;
}
export interface FinishCopyRequest {
  copyMasterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  closeOrders: boolean;
}

/** SPEC 2.7 */
export interface CopySettingsDto {
  copyMasterFuturesAccountId: number;
  copySlaveFuturesAccountId: number;
  margin: number;
}

/**
 * SPEC 4.2: slave accounts and their subscriptions. A slave is a futures account of its own (its id
 * is that account's id); each subscription gets a futures account too, holding the margin allocated
 * to it and the positions mirrored into it (docs/copy-trading.md).
 */
export class CopySlaveService {
  constructor(
    private readonly d: CopyDeps,
    private readonly views: CopyViews,
    private readonly settlement: CopySettlementService,
  ) {}

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
    const dto = await this.views.slave(s);
    const state = await this.d.reader.state(s.id);
    if (state && state.free.gt(0)) {
      await this.d.futures.engine.transfer(userId, s.id, null, s.currency, state.free.toFixed(0));
    }
    await this.d.store.deleteSlave(s);
    return dto;
  }

  /**
   * Starts copying: a futures account for the subscription (the slave's currency and leverage),
   * and `margin` moved into it from the slave account's free balance.
   */
  async start(userId: string, req: CopySettingsRequest): Promise<CopyFollowingHistoryDto> {
    const slave = await this.owned(userId, req.copySlaveFuturesAccountId);
    const master = await this.d.store.master(req.copyMasterFuturesAccountId);
    if (!master) throw notFound('MASTER_NOT_FOUND', 'Copy master not found');
    if (master.status !== 'Active') throw conflict('MASTER_CLOSED', 'The strategy is closed');
    if (master.currency !== slave.currency) {
      throw rejected('CURRENCY_MISMATCH', `The master trades in ${master.currency}, the slave holds ${slave.currency}`);
    }
    const taken = () => conflict('SUBSCRIPTION_EXISTS', 'This slave already copies this master');
    if (await this.d.store.activeSubscription(master.id, slave.id)) throw taken();
    const margin = await this.marginMinor(slave.currency, req.margin);
    const state = await this.d.reader.state(slave.id);
    if (!state || state.free.lt(margin)) throw rejected('INSUFFICIENT_BALANCE', 'Not enough free balance in the slave account');
    const subId = await this.d.store.nextSubscriptionId();
    if (!(await this.d.store.claimActive(master.id, slave.id, subId))) throw taken();
    try {
      const acct = await this.d.futures.accounts.create(userId, {
        name: `copy #${subId} of ${master.name}`, currencyCode: slave.currency, leverage: Number(slave.leverage),
      });
      const now = Date.now();
      await this.d.engine.allocate(userId, slave.currency, slave.id, String(acct.id), subId, 'in', margin, now);
      const sub: SubscriptionRecord = {
        id: subId, master: master.id, slave: slave.id, user: userId, acct: String(acct.id), currency: slave.currency,
        margin, initial: margin, opened: String(now), active: '1', closed: '', reason: '', settledEquity: '', profit: '',
      };
      await this.d.store.saveSubscription(sub);
      return this.views.subscription(sub);
    } catch (err) {
      await this.d.store.releaseActive(master.id, slave.id);
      throw err;
    }
  }

  /** Sets the subscription's margin: the difference moves from or back to the slave account's free balance. */
  async update(userId: string, req: CopySettingsRequest): Promise<CopySettingsDto> {
    const sub = await this.active(userId, req.copyMasterFuturesAccountId, req.copySlaveFuturesAccountId);
    const margin = await this.marginMinor(sub.currency, req.margin);
    const diff = BigInt(margin) - BigInt(sub.margin);
    const now = Date.now();
    if (diff > 0n) {
      await this.d.engine.allocate(userId, sub.currency, sub.slave, sub.acct, sub.id, 'in', diff.toString(), now);
    } else if (diff < 0n) {
      await this.d.engine.allocate(userId, sub.currency, sub.acct, sub.slave, sub.id, 'out', (-diff).toString(), now);
    }
    await this.d.store.updateSubscription(sub.id, { margin });
    return this.settingsDto({ ...sub, margin });
  }

  async finish(userId: string, req: FinishCopyRequest): Promise<CopyFollowingHistoryDto> {
    const sub = await this.active(userId, req.copyMasterFuturesAccountId, req.copySlaveFuturesAccountId);
    await this.settlement.finish(sub, req.closeOrders, FinishReason.Slave);
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
    };
  }

  private async pageOf(subs: SubscriptionRecord[], page: PageRequest): Promise<PagedResult<CopyFollowingHistoryDto>> {
    const p = paged(subs, page);
    return { ...p, items: await Promise.all(p.items.map((s) => this.views.subscription(s))) };
  }
}
