import BigNumber from 'bignumber.js';
import { closedOrClosing, type CopyDeps } from './copy-deps';
import type { MasterRecord, SubscriptionRecord } from './copy-store';

const YEAR_MS = 365 * 24 * 3600 * 1000;

/**
 * The master's income from a subscription (DESIGN 4): the management fee, `commissionRate` % a year
 * of the subscription's margin for the time since the last accrual, and the profit share,
 * `slaveIncomePercentage` % of the subscription's profit above its high-water mark. Both are paid
 * from the subscription's account to the master owner's wallet by lua/copy/settleCopyCharge-3, rounded
 * down, capped at the account's free balance. Runs on finishMasterCopy and from the daily job.
 */
export class CopySettlementService {
  constructor(private readonly d: CopyDeps) {}

  /** Settles one active subscription up to `now`; returns what was charged, in minor units. */
  async settle(sub: SubscriptionRecord, now = Date.now()): Promise<{ fee: string; share: string }> {
    const master = (await this.d.store.master(sub.master)) as MasterRecord;
    const out = { fee: '0', share: '0' };
    let ledger = await this.d.store.ledger(sub.id);
    const elapsed = now - Number(ledger.feeTs || sub.opened);
    const fee = new BigNumber(sub.margin)
      .times(master.commissionRate)
      .div(100)
      .times(Math.max(0, elapsed))
      .div(YEAR_MS)
      .integerValue(BigNumber.ROUND_FLOOR);
    if (fee.gt(0)) {
      out.fee =
        (await this.d.engine.charge(sub.acct, master.user, sub.id, sub.currency, 'fee', fee.toFixed(0), ledger.feeTs, String(now))) ??
        '0';
    }
    const state = await this.d.reader.state(sub.acct);
    if (!state) return out;
    ledger = await this.d.store.ledger(sub.id);
    const profit = state.equity.minus(ledger.netIn).integerValue(BigNumber.ROUND_FLOOR);
    const above = profit.minus(ledger.hwm);
    if (above.gt(0)) {
      const share = above.times(master.slaveIncomePercentage).div(100).integerValue(BigNumber.ROUND_FLOOR);
      out.share =
        (await this.d.engine.charge(
          sub.acct, master.user, sub.id, sub.currency, 'share', share.toFixed(0), ledger.hwm, profit.toFixed(0),
        )) ?? '0';
    }
    return out;
  }

  /**
   * Ends an active subscription: with `closeOrders` its positions are closed (and unfilled orders
   * cancelled) first, so a failure there leaves it active. Then copying stops, the subscription is
   * settled, its equity at that moment recorded, and the free balance of its account returns to
   * the slave's account. Positions left open keep their margin in the subscription's account.
   */
  async finish(sub: SubscriptionRecord, closeOrders: boolean, reason: string, now = Date.now()): Promise<void> {
    if (closeOrders) await this.closeAll(sub.acct);
    await this.d.store.updateSubscription(sub.id, { active: '0', closed: String(now), reason });
    await this.d.store.releaseActive(sub.master, sub.slave);
    if (closeOrders) await this.closeAll(sub.acct); // a mirror that raced the finish
    await this.settle(sub, now);
    const state = await this.d.reader.state(sub.acct);
    if (!state) return;
    const ledger = await this.d.store.ledger(sub.id);
    await this.d.store.updateSubscription(sub.id, {
      settledEquity: state.equity.toFixed(0),
      profit: state.equity.minus(ledger.netIn).toFixed(0),
    });
    await this.d.engine.allocate(sub.user, sub.currency, sub.acct, sub.slave, sub.id, 'out', null, now);
  }

  /** Closes every position of a futures account at market and cancels its unfilled orders. */
  async closeAll(accountId: string): Promise<void> {
    const state = await this.d.reader.state(accountId);
    for (const o of state?.orders ?? []) {
      if (o.h.status === '50' || o.h.status === '10') {
        await closedOrClosing(() => this.d.futures.orders.close(o.h.user, { orderId: Number(o.h.id), isMarket: true }));
      }
    }
  }

  /** The daily job: every active subscription of every open master. */
  async settleAll(now = Date.now()): Promise<number> {
    let n = 0;
    for (const m of await this.d.store.allMasters()) {
      if (m.status !== 'Active') continue;
      for (const s of await this.d.store.masterSubscriptions(m.id)) {
        if (s.active !== '1') continue;
        try {
          await this.settle(s, now);
          n++;
        } catch (err) {
          this.d.log.error({ err, subscription: s.id }, 'copy settlement failed');
        }
      }
    }
    return n;
  }
}
