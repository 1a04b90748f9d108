import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import { engineError } from '../domain/errors';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import type { ScriptReply } from '../platform/redis/reply';
import type { MasterRecord, SubscriptionRecord } from './copy-store';

/** The copy scripts' own rejections, with the status each answers (the rest are the engine's). */
const COPY_ERRORS: Record<string, [number, string]> = {
  MASTER_NOT_FOUND: [404, 'Copy master not found'],
  SLAVE_NOT_FOUND: [404, 'Copy slave not found'],
  SUBSCRIPTION_NOT_FOUND: [404, 'Subscription not found'],
  MASTER_CLOSED: [409, 'The strategy is closed or closing'],
  MASTER_ACTIVE: [409, 'The strategy is not closing'],
  SUBSCRIPTION_EXISTS: [409, 'This slave already copies this master'],
  SUBSCRIPTION_FINISHED: [409, 'The subscription is finished or finishing'],
  SUBSCRIPTION_ACTIVE: [409, 'The subscription is not finishing'],
  COPY_ACCOUNT: [409, 'The subscription account is not an empty copy account'],
  SELF_COPY: [422, 'A master cannot be followed by its own owner'],
};

function check(reply: ScriptReply): ScriptReply {
  if (reply[0] !== 'ERR') return reply;
  const code = String(reply[1]);
  const own = COPY_ERRORS[code];
  if (own) throw new AppError(own[0], code, own[1]);
  throw engineError(code, reply[2] ? String(reply[2]) : undefined);
}

/** A percent as parts per million of 1 (the scripts' rate unit), rounded down. */
export const ppm = (percent: string | number) => new BigNumber(percent).times(10_000).integerValue(BigNumber.ROUND_FLOOR).toFixed(0);

/** Follower risk settings as the scripts take them: '' unchanged (or none at start), 'none' cleared. */
export interface RiskArgs {
  stopLossPercent: string;
  takeProfitPercent: string;
  maxSlippagePercent: string;
}

/**
 * How copy steps pay a user whose home is another shard (docs/copy-trading.md, "Payments"): the
 * payee's home, and the relay steps of a transfer a step sent (never throws: a payment not
 * delivered now stays in the outbox, and the worker's drain delivers it).
 */
export interface CopyPayees {
  homeOf(userId: string): Promise<number>;
  deliver(transferId: string, from: number): Promise<void>;
  /**
   * Brings a futures account's free margin from the market shards it sits on back to the account's
   * registry, where the copy scripts read its cash (nothing to do with one shard).
   */
  gather(userId: string, accountId: string, cur: string): Promise<void>;
}

/**
 * Typed calls into the copy-trading transition scripts (lua/copy): each is one atomic engine step
 * over the subscription's records and the money it moves, run exactly once (Scripts.runOnce).
 * Money leaving for the master owner's home (fees, profit share, a closed master's balance) leaves
 * in the step as a transfer, which is then carried to its target (CopyPayees.deliver).
 */
export class CopyEngine {
  constructor(
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    /** MAXLEN of the user event stream the transitions append to. */
    private readonly streamMaxLen: number,
    private readonly payees: CopyPayees,
  ) {}

  private async once(name: string, keys: string[], args: (string | number)[]): Promise<ScriptReply> {
    return check(await this.scripts.runOnceFor<ScriptReply>(name, keys, args, this.keys));
  }

  async start(userId: string, masterId: string, slaveId: string, acct: string, subId: string, margin: string, now: number, risk: RiskArgs) {
    const k = this.keys;
    await this.once(
      'startCopy',
      [
        k.copyMaster(masterId), k.copySlave(slaveId), k.copyActiveSubscription(masterId, slaveId), k.futuresAccount(slaveId),
        k.futuresAccount(acct), k.copySubscription(subId), k.copyLedger(subId), k.copyMasterSubscriptions(masterId),
        k.copySlaveSubscriptions(slaveId), k.copyFollowerUsers(), k.copySubscriptionAccounts(), k.userEvents(),
      ],
      [userId, subId, margin, now, risk.stopLossPercent, risk.takeProfitPercent, risk.maxSlippagePercent, this.streamMaxLen],
    );
    await this.refreshBoard(masterId);
  }

  /** Returns the margin now recorded, minor units. */
  async update(userId: string, sub: SubscriptionRecord, master: MasterRecord, margin: string | null, now: number, risk: RiskArgs) {
    const k = this.keys;
    const r = await this.once(
      'updateCopySettings',
      [k.copySubscription(sub.id), k.copyLedger(sub.id), k.futuresAccount(sub.slave), k.futuresAccount(sub.acct), k.userEvents()],
      [
        userId, margin ?? '', now, ppm(master.commissionRate), risk.stopLossPercent, risk.takeProfitPercent, risk.maxSlippagePercent,
        this.streamMaxLen,
      ],
    );
    await this.refreshBoard(sub.master);
    return String(r[1]);
  }

  /** Fee and share paid, minor units. */
  async settle(sub: SubscriptionRecord, master: MasterRecord, now: number): Promise<{ fee: string; share: string }> {
    const r = await this.once(
      'settleCopy',
      [...this.moneyKeys(sub, master), this.keys.userEvents(), ...this.sendKeys(master.user)],
      [now, ppm(master.commissionRate), ppm(master.slaveIncomePercentage), this.streamMaxLen, ...(await this.sendArgs(master.user))],
    );
    await this.delivered(r[3]);
    return { fee: String(r[1]), share: String(r[2]) };
  }

  /** `userId` null: any owner (a master close finishes its followers' subscriptions). */
  async beginFinish(sub: SubscriptionRecord, master: MasterRecord, userId: string | null, reason: string, closeOrders: boolean, now: number) {
    const r = await this.once(
      'beginCopyFinish',
      [
        ...this.moneyKeys(sub, master), this.keys.copyActiveSubscription(sub.master, sub.slave), this.keys.copyFinishing(),
        this.keys.userEvents(), ...this.sendKeys(master.user),
      ],
      [
        now, ppm(master.commissionRate), ppm(master.slaveIncomePercentage), reason, closeOrders ? '1' : '0', userId ?? '',
        this.streamMaxLen, ...(await this.sendArgs(master.user)),
      ],
    );
    await this.delivered(r[1]);
    await this.refreshBoard(sub.master);
  }

  /** Returns the minor units moved back to the slave's account. */
  async completeFinish(sub: SubscriptionRecord, master: MasterRecord): Promise<string> {
    // the subscription's free margin on other shards (a master trading there) comes back first,
    // so the step settles and returns the subscription's whole cash
    await this.payees.gather(sub.user, sub.acct, sub.currency);
    const r = await this.once(
      'completeCopyFinish',
      [
        ...this.moneyKeys(sub, master), this.keys.futuresAccount(sub.slave), this.keys.copyFinishing(), this.keys.userEvents(),
        ...this.sendKeys(master.user),
      ],
      [ppm(master.slaveIncomePercentage), Date.now(), this.streamMaxLen, ...(await this.sendArgs(master.user))],
    );
    await this.delivered(r[2]);
    return String(r[1]);
  }

  async beginMasterClose(master: MasterRecord, userId: string): Promise<void> {
    await this.once('beginMasterClose', [this.keys.copyMaster(master.id), this.keys.copyMastersClosing()], [userId]);
    await this.refreshBoard(master.id);
  }

  /** Re-scores a master's followers, aum and newest on the leaderboard from its records (idempotent). */
  async refreshBoard(masterId: string): Promise<void> {
    const k = this.keys;
    await this.scripts.run(
      'refreshCopyBoard',
      [k.copyMaster(masterId), k.copyMasterSubscriptions(masterId), k.copyBoard('followers'), k.copyBoard('aum'), k.copyBoard('newest')],
      [k.copySubscription('')],
    );
  }

  async completeMasterClose(master: MasterRecord, now: number): Promise<void> {
    const k = this.keys;
    await this.payees.gather(master.user, master.id, master.currency);
    const [, id, , , home] = await this.sendArgs(master.user);
    const r = await this.once(
      'completeMasterClose',
      [
        k.copyMaster(master.id), k.futuresAccount(master.id), k.walletAvailable(master.user), k.copyMastersClosing(), k.userEvents(),
        ...this.sendKeys(master.user),
      ],
      [now, this.streamMaxLen, k.engine, id, k.shard, home],
    );
    await this.delivered(r[2]);
  }

  /** The outbox, the payee's pending transfers and the transfer versions of this shard (a payment's KEYS). */
  private sendKeys(payee: string): string[] {
    return [this.keys.outbox(), this.keys.userTransfersPending(payee), this.keys.transferVersions()];
  }

  /**
   * A payment's ARGV: engine prefix, transfer id ('' when the payee's home is this shard: paid in
   * the step, as with one shard), payee, this shard, the payee's home. The id is random per
   * attempt and stays out of KEYS, so a keyed retry names the same operation record.
   */
  private async sendArgs(payee: string): Promise<[string, string, string, number, number]> {
    const home = await this.payees.homeOf(payee);
    const id = home === this.keys.shard ? '' : randomUUID();
    return [this.keys.engine, id, payee, this.keys.shard, home];
  }

  private async delivered(transferId: unknown): Promise<void> {
    if (transferId) await this.payees.deliver(String(transferId), this.keys.shard);
  }

  private moneyKeys(sub: SubscriptionRecord, master: MasterRecord): string[] {
    const k = this.keys;
    return [k.copySubscription(sub.id), k.copyLedger(sub.id), k.futuresAccount(sub.acct), k.walletAvailable(master.user)];
  }
}
