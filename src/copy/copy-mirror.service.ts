import type BigNumber from 'bignumber.js';
import type { CopyDeps } from './copy-deps';
import type { CopySettlementService } from './copy-settlement.service';
import type { MarketEntry } from '../platform/market-event';
import { eventUsers, masterEvents, planFollowerAction, type MasterEvent } from './mirror-plan';
import { MirrorActions, newOutcome, type MirrorOutcome } from './mirror-actions';

export { SkipReason, copyClientOrderId } from './mirror-plan';
export type { MirrorOutcome } from './mirror-actions';

const RESUME_EVERY_MS = 5_000;
/** Follower actions carried out at once for one master event. */
const FANOUT_CONCURRENCY = 32;

/**
 * Mirrors masters' trading onto their active subscriptions (DESIGN 4, docs/copy-trading.md), from
 * the futures streams' `trade`, `done` and `trigger` events: each fill of a master's opening order,
 * each close fill (a partial close as a fraction), a position's end, a TP/SL change. What each
 * subscription does is planned by mirror-plan.ts and carried out by mirror-actions.ts; every action
 * is idempotent, so a replayed entry does nothing twice.
 */
export class CopyMirrorService {
  private readonly actions: MirrorActions;

  constructor(
    private readonly d: CopyDeps,
    private readonly settlement: CopySettlementService,
  ) {
    this.actions = new MirrorActions(d);
  }

  /** The master orders a subscription did not mirror, with the reason of each. */
  skips(subscriptionId: string | number) {
    return this.d.store.skips(String(subscriptionId));
  }

  private lastResume = 0;

  /** One futures stream entry, as the dispatcher hands it over (or a test reads it). */
  async handleEntry(entry: Pick<MarketEntry, 'events' | 'ts'>): Promise<MirrorOutcome> {
    // the worker takes up finishes and master closes a crashed API process left between steps
    if (Date.now() - this.lastResume > RESUME_EVERY_MS) {
      this.lastResume = Date.now();
      await this.settlement.resume();
    }
    const out = newOutcome();
    for (const ev of entry.events) {
      if (ev.e === 'done' && ev.status === 'closed' && (await this.d.store.isFollowerUser(ev.u))) {
        const h = await this.d.reader.order(ev.id);
        if (h.kind === 'futures' && h.role === 'open') await this.returnLeftover(h.acct);
      }
    }
    const masters = new Set<string>();
    for (const u of eventUsers(entry.events)) if (await this.d.store.isMasterUser(u)) masters.add(u);
    if (masters.size === 0) return out;
    const equity = new Map<string, BigNumber>();
    const traded = new Set<string>();
    for (const ev of masterEvents(entry, masters)) {
      const master = await this.mirrorEvent(ev, equity, out);
      if (master) traded.add(master);
    }
    // the followers' stop loss and take profit, looked at whenever their master trades
    for (const master of traded) {
      for (const sub of await this.d.store.masterSubscriptions(master)) await this.settlement.enforceRiskControls(sub);
    }
    return out;
  }

  /** One master event onto every active subscription of its master; returns the master's id (null: not a master's position). */
  async mirrorEvent(ev: MasterEvent, equity = new Map<string, BigNumber>(), out = newOutcome()): Promise<string | null> {
    const view = await this.actions.eventView(ev, equity);
    if (!view) return null;
    const subs = (await this.d.store.masterSubscriptions(view.master.id)).filter((s) => s.active === '1');
    const one = async (sub: (typeof subs)[number]) => {
      const action = planFollowerAction(ev, view, await this.actions.subscriptionView(ev, sub));
      await this.actions.execute(action, ev, sub, out);
    };
    for (let i = 0; i < subs.length; i += FANOUT_CONCURRENCY) await Promise.all(subs.slice(i, i + FANOUT_CONCURRENCY).map(one));
    return view.master.id;
  }

  /**
   * A position left open by finishMasterCopy (closeOrders false) has closed: the free balance of the
   * finished subscription's account goes back to the slave account, as at the finish itself.
   */
  private async returnLeftover(accountId: string): Promise<void> {
    const sub = await this.d.store.subscriptionOfAccount(accountId);
    if (!sub || sub.state === 'Active') return;
    await this.settlement.completeFinishing(sub.id);
  }
}
