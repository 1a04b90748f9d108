import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import type { CopyBoard } from './copy-board';
import { closedOrClosing, FinishReason, type CopyDeps } from './copy-deps';
import type { MasterRecord, SubscriptionRecord } from './copy-store';

/**
 * The master's income from a subscription and the subscription's end (docs/copy-trading.md,
 * docs/copy-trading.md). Every money step is one lua/copy script: settleCopy (management fee
 * accrued over time, profit share on realized profit above the high-water mark), and the finish
 * as a durable state machine Active -> Finishing -> Finished whose steps are idempotent:
 * beginCopyFinish settles and stops copying, the positions close (closeOrders), completeCopyFinish
 * settles what they realized and returns the free balance. `resume` takes up a finish or a master
 * close a crash left half done.
 */
export class CopySettlementService {
  constructor(
    private readonly d: CopyDeps,
    private readonly board: CopyBoard,
  ) {}

  /** Settles one subscription up to `now`; returns what was paid, in minor units. */
  async settle(sub: SubscriptionRecord, now = Date.now()): Promise<{ fee: string; share: string }> {
    return this.d.engine.settle(sub, await this.masterOf(sub), now);
  }

  /**
   * Ends an active subscription (409 when it is not Active: finishing twice, or a finish racing
   * another). With `closeOrders` its positions close and unfilled orders are cancelled; positions
   * left open keep their margin in the subscription's account until they close (the mirror returns
   * that money then, through completeCopyFinish, which settles first).
   */
  async finish(sub: SubscriptionRecord, userId: string | null, closeOrders: boolean, reason: string, now = Date.now()): Promise<void> {
    await this.d.engine.beginFinish(sub, await this.masterOf(sub), userId, reason, closeOrders, now);
    await this.completeFinishing(sub.id);
  }

  /** The steps after beginCopyFinish; safe to run again at any point (a resumed finish). */
  async completeFinishing(subId: string): Promise<void> {
    const sub = await this.d.store.subscription(subId);
    if (!sub || sub.state === 'Active') return;
    if (sub.closeOrders === '1') await this.closeAll(sub.acct);
    await this.d.engine.completeFinish(sub, await this.masterOf(sub));
  }

  /**
   * Closes a master: beginMasterClose (no new followers), its positions close, every subscription
   * finishes MASTER_CLOSED with its positions closed, then completeMasterClose returns the free
   * balance to the owner's wallet. Resumable from any step.
   */
  async closeMaster(m: MasterRecord, userId: string, now = Date.now()): Promise<void> {
    await this.d.engine.beginMasterClose(m, userId);
    await this.completeMasterClosing(m.id, now);
  }

  async completeMasterClosing(masterId: string, now = Date.now()): Promise<void> {
    const m = await this.d.store.master(masterId);
    if (!m || m.status === 'Active') return;
    await this.board.delist(m.id);
    await this.closeAll(m.id);
    for (const s of await this.d.store.masterSubscriptions(m.id)) {
      if (s.state === 'Active') {
        await this.d.engine.beginFinish(s, m, null, FinishReason.MasterClosed, true, now).catch((err: unknown) => {
          // a finish of the follower's own won the race: it completes below all the same
          if (!(err instanceof AppError && err.status === 409)) throw err;
        });
      }
      if (s.state !== 'Finished') await this.completeFinishing(s.id);
    }
    await this.d.engine.completeMasterClose(m, now);
    await this.d.store.forgetClosedMaster(m);
  }

  /**
   * The follower's risk controls (docs/copy-trading.md): when the subscription's equity (with unrealized pnl at
   * mark) has fallen `stopLossPercent` % of the margin, or risen `takeProfitPercent` %, the copy
   * finishes with its positions closed (reason STOP_LOSS / TAKE_PROFIT). Returns whether it did.
   */
  async enforceRiskControls(sub: SubscriptionRecord): Promise<boolean> {
    if (sub.state !== 'Active' || (!sub.stopLossPercent && !sub.takeProfitPercent)) return false;
    const state = await this.d.reader.state(sub.acct);
    if (!state) return false;
    const margin = new BigNumber(sub.margin);
    const change = state.equity.minus(margin).div(margin).times(100);
    let reason: string | null = null;
    if (sub.stopLossPercent && change.lte(-Number(sub.stopLossPercent))) reason = FinishReason.StopLoss;
    else if (sub.takeProfitPercent && change.gte(Number(sub.takeProfitPercent))) reason = FinishReason.TakeProfit;
    if (!reason) return false;
    try {
      await this.finish(sub, null, true, reason);
      return true;
    } catch (err) {
      if (err instanceof AppError && err.status === 409) return false; // finished meanwhile
      throw err;
    }
  }

  /**
   * The step after startCopy at a home other than shard 0 (safe to run again at any point, a resumed
   * start): links the subscription to its master (linkCopySubscription on shard 0). When the master
   * is closing or closed the subscription finishes at home (MASTER_CLOSED, positions closed: it has
   * none) and this answers false. True at shard 0, where startCopy linked it itself.
   */
  async completeStart(subId: string): Promise<boolean> {
    if (this.d.store.homeKeys(subId).shard === this.d.keys.shard) return true;
    const sub = await this.d.store.subscription(subId);
    if (!sub) return true;
    const linked = await this.d.engine.link(sub);
    if (!linked && sub.state === 'Active') {
      await this.finish(sub, null, true, FinishReason.MasterClosed).catch((err: unknown) => {
        // a finish of the follower's own won the race: it completes all the same
        if (!(err instanceof AppError && err.status === 409)) throw err;
      });
    }
    if (!linked) await this.completeFinishing(subId);
    await this.d.store.started(subId);
    return linked;
  }

  /** Starts, finishes and master closes a crash left between their steps (the worker runs this). */
  async resume(): Promise<number> {
    const { subscriptions, masters, starting } = await this.d.store.unfinished();
    for (const id of starting) await this.completeStart(id);
    for (const id of masters) await this.completeMasterClosing(id);
    for (const id of subscriptions) await this.completeFinishing(id);
    return subscriptions.length + masters.length + starting.length;
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

  /** The daily job: every active subscription of every open master, and whatever a crash left half done. */
  async settleAll(now = Date.now()): Promise<number> {
    await this.resume();
    let n = 0;
    for (const m of await this.d.store.allMasters()) {
      if (m.status !== 'Active') continue;
      await this.board.repair(m);
      for (const s of await this.d.store.masterSubscriptions(m.id)) {
        if (s.state !== 'Active') continue;
        try {
          if (await this.enforceRiskControls(s)) continue;
          await this.d.engine.settle(s, m, now);
          n++;
        } catch (err) {
          this.d.log.error({ err, subscription: s.id }, 'copy settlement failed');
        }
      }
    }
    return n;
  }

  private async masterOf(sub: SubscriptionRecord): Promise<MasterRecord> {
    return (await this.d.store.master(sub.master)) as MasterRecord;
  }
}
