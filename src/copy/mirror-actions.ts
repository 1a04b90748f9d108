import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import { closedOrClosing, type CopyDeps } from './copy-deps';
import type { SubscriptionRecord } from './copy-store';
import {
  copyClientOrderId, copyCloseId, SkipReason, type EventView, type FollowerAction, type MasterEvent, type SubscriptionView,
} from './mirror-plan';

/** What mirroring did with one stream entry; a failed step makes the job throw, and BullMQ retries it. */
export interface MirrorOutcome {
  placed: number;
  skipped: number;
  closed: number;
  updated: number;
  failed: number;
}

export const newOutcome = (): MirrorOutcome => ({ placed: 0, skipped: 0, closed: 0, updated: 0, failed: 0 });

/**
 * The reads a plan needs (mirror-plan.ts) and the engine calls that carry its actions out. `equity`
 * caches the master's equity per entry: the fills of one master order share it.
 */
export class MirrorActions {
  constructor(private readonly d: CopyDeps) {}

  /** The master's position the event is about, when it is on an Active master's account; else null. */
  async eventView(ev: MasterEvent, equity: Map<string, BigNumber>): Promise<EventView | null> {
    const position = await this.d.reader.order(ev.masterOrderId);
    if (position.kind !== 'futures' || position.role !== 'open') return null;
    const master = await this.d.store.master(position.acct);
    if (!master || master.status !== 'Active') return null;
    const pair = await this.d.futures.orders.futuresPair(position.pair);
    if (ev.kind === 'fill' && !equity.has(master.id)) {
      equity.set(master.id, (await this.d.reader.state(master.id))?.equity ?? new BigNumber(0));
    }
    return { master, pair, position, equity: equity.get(master.id) ?? new BigNumber(0) };
  }

  /** A fill needs to know whether it was placed already; a close or a TP/SL change the follower's open positions. */
  async subscriptionView(ev: MasterEvent, sub: SubscriptionRecord): Promise<SubscriptionView> {
    if (ev.kind === 'fill') {
      const placed = await this.d.reader.orderByClientId(sub.user, copyClientOrderId(ev.masterOrderId, sub.id, ev.tradeId));
      return { sub, open: [], placed };
    }
    return { sub, open: await this.d.reader.openOrders(sub.acct), placed: null };
  }

  async execute(action: FollowerAction, ev: MasterEvent, sub: SubscriptionRecord, out: MirrorOutcome): Promise<void> {
    const skip = async (reason: string) => {
      await this.d.store.recordSkip(sub.id, ev.masterOrderId, reason, ev.ts, ev.kind === 'fill' ? ev.tradeId : undefined);
      out.skipped++;
    };
    try {
      switch (action.kind) {
        case 'skip':
          return await skip(action.reason);
        case 'place': {
          const placed = await this.d.futures.orders.create(action.userId, action.order, true);
          const f = await this.d.reader.order(placed.id);
          // an IOC that found nothing within maxSlippagePercent of the master's price ends unfilled
          if (f.status === '30' || f.status === '40') return await skip(f.status === '40' ? 'INSUFFICIENT_MARGIN' : SkipReason.Slippage);
          out.placed++;
          // the master may have closed while this order was placed: its close found nothing to mirror
          if ((await this.d.reader.order(ev.masterOrderId)).status !== '50') {
            await this.close(action.userId, { orderId: Number(f.id), isMarket: true, clientOrderId: copyCloseId('closed', f.id) }, out);
          }
          return;
        }
        case 'close':
          for (const c of action.closes) await this.close(action.userId, c, out);
          return;
        case 'trigger':
          for (const u of action.updates) {
            if (await closedOrClosing(() => this.d.futures.orders.updateTrigger(action.userId, u.orderId, u.which, u.price))) out.updated++;
          }
          return;
        default:
          return;
      }
    } catch (err) {
      // the engine refused the follower's order or TP/SL (margin, minimum, a trigger on the wrong side): a skip
      if (err instanceof AppError && err.status === 422) return await skip(err.code);
      out.failed++;
      this.d.log.error({ err, subscription: sub.id, masterOrderId: ev.masterOrderId, action: action.kind }, 'copy: follower action failed');
    }
  }

  private async close(userId: string, req: Parameters<CopyDeps['futures']['orders']['close']>[1], out: MirrorOutcome) {
    if (await closedOrClosing(() => this.d.futures.orders.close(userId, req))) out.closed++;
  }
}
