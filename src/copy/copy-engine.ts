import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import { engineError } from '../domain/errors';
import { shardOfId } from '../domain/shard-ids';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import type { ScriptReply } from '../platform/redis/reply';
import type { CopyStore, MasterRecord, SubscriptionRecord } from './copy-store';

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
  /**
   * Makes `minor` of the account's free margin available on `shard` (a top-up from the account's
   * home by the transfer protocol, relay steps run here), so the step there can take it; a shortfall
   * is left to the step to answer with its own code. Nothing to do with one shard.
   */
  fund(userId: string, accountId: string, shard: number, cur: string, minor: string): Promise<void>;
}

/**
 * Typed calls into the copy-trading transition scripts (lua/copy): each is one atomic engine step
 * over the subscription's records and the money it moves, run exactly once (Scripts.runOnce).
 * A subscription's steps run at its follower's home (the shard its id names), the master's (close,
 * board, the link of a new subscription) on shard 0 (`keys`). Money leaving for the master owner's
 * home (fees, profit share, a closed master's balance) leaves in the step as a transfer, which is
 * then carried to its target (CopyPayees.deliver).
 */
export class CopyEngine {
  constructor(
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    /** MAXLEN of the user event stream the transitions append to. */
    private readonly streamMaxLen: number,
    private readonly payees: CopyPayees,
    private readonly shards: Pick<EngineShards, 'keys'>,
    /** A master's subscriptions whose records are at another home than shard 0 (the board reads them). */
    private readonly remote: Pick<CopyStore, 'remoteSubscriptions'>,
  ) {}

  private async once(name: string, keys: string[], args: (string | number)[], at: Keys = this.keys): Promise<ScriptReply> {
    return check(await this.scripts.runOnceFor<ScriptReply>(name, keys, args, at));
  }

  /** The user's home shard: where a subscription they start lives. */
  homeOf(userId: string): Promise<number> {
    return this.payees.homeOf(userId);
  }

  /** Brings a futures account's free margin from every other shard back to its home (nothing with one shard). */
  gather(userId: string, accountId: string, cur: string): Promise<void> {
    return this.payees.gather(userId, accountId, cur);
  }

  /** The keys of a subscription's home (the shard its id names). */
  private home(subId: string): Keys {
    return this.shards.keys(shardOfId(subId));
  }

  /**
   * Step 1 of a start, at the follower's home (startCopy): the margin from the slave's account into
   * the subscription's (registered there), the subscription's records. At shard 0 it is the whole
   * start; elsewhere `link` follows, and a slave registered elsewhere (on shard 0, from before
   * homes) first has the margin brought to its escrow at home (a top-up; nothing moves for a slave
   * registered at home that holds it).
   */
  async start(userId: string, master: MasterRecord, slaveId: string, acct: string, subId: string, margin: string, now: number, risk: RiskArgs) {
    const h = this.home(subId);
    const here = h.shard === this.keys.shard;
    if (!here) await this.payees.fund(userId, slaveId, h.shard, master.currency, margin);
    // with the master's side elsewhere its keys here are placeholders of this shard's (the script writes none)
    const m = here ? this.keys : h;
    await this.once(
      'startCopy',
      [
        m.copyMaster(master.id), m.copySlave(slaveId), h.copyActiveSubscription(master.id, slaveId), h.futuresAccount(slaveId),
        h.futuresAccount(acct), h.copySubscription(subId), h.copyLedger(subId), m.copyMasterSubscriptions(master.id),
        h.copySlaveSubscriptions(slaveId), m.copyFollowerUsers(), h.copySubscriptionAccounts(), h.userEvents(), h.copyStarting(),
      ],
      [
        userId, subId, margin, now, risk.stopLossPercent, risk.takeProfitPercent, risk.maxSlippagePercent, this.streamMaxLen,
        here ? '1' : '0', master.id, master.currency, slaveId,
      ],
      h,
    );
    if (here) await this.refreshBoard(master.id);
  }

  /**
   * Step 2 of a start at a home other than shard 0 (linkCopySubscription on shard 0): the
   * subscription joins its master's list while the master is Active. False when the master is
   * closing or closed: the caller finishes the subscription at home. Idempotent.
   */
  async link(sub: Pick<SubscriptionRecord, 'id' | 'master' | 'user' | 'acct' | 'opened'>): Promise<boolean> {
    const k = this.keys;
    const r = await this.scripts.run<ScriptReply>(
      'linkCopySubscription',
      [k.copyMaster(sub.master), k.copyMasterSubscriptions(sub.master), k.copyFollowerUsers(), k.copySubscriptionAccounts()],
      [sub.id, sub.opened, sub.user, sub.acct],
    );
    if (r[0] === 'ERR' && r[1] === 'MASTER_CLOSED') return false;
    check(r);
    await this.refreshBoard(sub.master);
    return true;
  }

  /**
   * Returns the margin now recorded, minor units. At a home other than shard 0 an increase first
   * tops the slave account's escrow up there, a decrease first brings the subscription's free
   * margin home from the market shards (a sweep): the step itself moves only what is at home.
   */
  async update(userId: string, sub: SubscriptionRecord, master: MasterRecord, margin: string | null, now: number, risk: RiskArgs) {
    const k = this.home(sub.id);
    if (k.shard !== this.keys.shard && margin !== null) {
      const diff = new BigNumber(margin).minus(sub.margin);
      if (diff.gt(0)) await this.payees.fund(userId, sub.slave, k.shard, sub.currency, diff.toFixed(0));
      if (diff.lt(0)) await this.payees.gather(sub.user, sub.acct, sub.currency);
    }
    const r = await this.once(
      'updateCopySettings',
      [k.copySubscription(sub.id), k.copyLedger(sub.id), k.futuresAccount(sub.slave), k.futuresAccount(sub.acct), k.userEvents()],
      [
        userId, margin ?? '', now, ppm(master.commissionRate), risk.stopLossPercent, risk.takeProfitPercent, risk.maxSlippagePercent,
        this.streamMaxLen,
      ],
      k,
    );
    await this.refreshBoard(sub.master);
    return String(r[1]);
  }

  /**
   * Fee and share paid, minor units. The subscription's free margin on other shards than its home
   * comes home first, so the step sees the profit realized there (margin locked in open positions
   * stays where it is: that can only delay a share, never charge one twice).
   */
  async settle(sub: SubscriptionRecord, master: MasterRecord, now: number): Promise<{ fee: string; share: string }> {
    await this.payees.gather(sub.user, sub.acct, sub.currency);
    const k = this.home(sub.id);
    const r = await this.once(
      'settleCopy',
      [...this.moneyKeys(sub, master), k.userEvents(), ...this.sendKeys(k, master.user)],
      [now, ppm(master.commissionRate), ppm(master.slaveIncomePercentage), this.streamMaxLen, ...(await this.sendArgs(k, master.user))],
      k,
    );
    await this.delivered(k, r[3]);
    return { fee: String(r[1]), share: String(r[2]) };
  }

  /** `userId` null: any owner (a master close finishes its followers' subscriptions). */
  async beginFinish(sub: SubscriptionRecord, master: MasterRecord, userId: string | null, reason: string, closeOrders: boolean, now: number) {
    const k = this.home(sub.id);
    const r = await this.once(
      'beginCopyFinish',
      [
        ...this.moneyKeys(sub, master), k.copyActiveSubscription(sub.master, sub.slave), k.copyFinishing(),
        k.userEvents(), ...this.sendKeys(k, master.user),
      ],
      [
        now, ppm(master.commissionRate), ppm(master.slaveIncomePercentage), reason, closeOrders ? '1' : '0', userId ?? '',
        this.streamMaxLen, ...(await this.sendArgs(k, master.user)),
      ],
      k,
    );
    await this.delivered(k, r[1]);
    await this.refreshBoard(sub.master);
  }

  /** Returns the minor units moved back to the slave's account. */
  async completeFinish(sub: SubscriptionRecord, master: MasterRecord): Promise<string> {
    // the subscription's free margin on other shards (a master trading there) comes back first,
    // so the step settles and returns the subscription's whole cash
    await this.payees.gather(sub.user, sub.acct, sub.currency);
    const k = this.home(sub.id);
    const r = await this.once(
      'completeCopyFinish',
      [
        ...this.moneyKeys(sub, master), k.futuresAccount(sub.slave), k.copyFinishing(), k.userEvents(),
        ...this.sendKeys(k, master.user),
      ],
      [ppm(master.slaveIncomePercentage), Date.now(), this.streamMaxLen, ...(await this.sendArgs(k, master.user))],
      k,
    );
    await this.delivered(k, r[2]);
    return String(r[1]);
  }

  async beginMasterClose(master: MasterRecord, userId: string): Promise<void> {
    await this.once('beginMasterClose', [this.keys.copyMaster(master.id), this.keys.copyMastersClosing()], [userId]);
    await this.refreshBoard(master.id);
  }

  /**
   * Re-scores a master's followers, aum and newest on the leaderboard from its records (idempotent).
   * Subscriptions at other homes than shard 0 are read here first (`remote`, one read per shard) and
   * passed in; the script reads shard 0's own.
   */
  async refreshBoard(masterId: string): Promise<void> {
    const k = this.keys;
    const active = (await this.remote.remoteSubscriptions(masterId)).filter((s) => s.active === '1');
    await this.scripts.run(
      'refreshCopyBoard',
      [k.copyMaster(masterId), k.copyMasterSubscriptions(masterId), k.copyBoard('followers'), k.copyBoard('aum'), k.copyBoard('newest')],
      [k.copySubscription(''), active.length, active.reduce((sum, s) => sum.plus(s.margin), new BigNumber(0)).toFixed(0)],
    );
  }

  async completeMasterClose(master: MasterRecord, now: number): Promise<void> {
    const k = this.keys;
    await this.payees.gather(master.user, master.id, master.currency);
    const [, id, , , home] = await this.sendArgs(k, master.user);
    const r = await this.once(
      'completeMasterClose',
      [
        k.copyMaster(master.id), k.futuresAccount(master.id), k.walletAvailable(master.user), k.copyMastersClosing(), k.userEvents(),
        ...this.sendKeys(k, master.user),
      ],
      [now, this.streamMaxLen, k.engine, id, k.shard, home],
    );
    await this.delivered(k, r[2]);
  }

  /** The outbox, the payee's pending transfers and the transfer versions of the paying shard (a payment's KEYS). */
  private sendKeys(k: Keys, payee: string): string[] {
    return [k.outbox(), k.userTransfersPending(payee), k.transferVersions()];
  }

  /**
   * A payment's ARGV: engine prefix, transfer id ('' when the payee's home is this shard: paid in
   * the step, as with one shard), payee, this shard, the payee's home. The id is random per
   * attempt and stays out of KEYS, so a keyed retry names the same operation record.
   */
  private async sendArgs(k: Keys, payee: string): Promise<[string, string, string, number, number]> {
    const home = await this.payees.homeOf(payee);
    const id = home === k.shard ? '' : randomUUID();
    return [k.engine, id, payee, k.shard, home];
  }

  private async delivered(k: Keys, transferId: unknown): Promise<void> {
    if (transferId) await this.payees.deliver(String(transferId), k.shard);
  }

  /** The subscription's record, ledger, account and the master owner's wallet, at the subscription's home. */
  private moneyKeys(sub: SubscriptionRecord, master: MasterRecord): string[] {
    const k = this.home(sub.id);
    return [k.copySubscription(sub.id), k.copyLedger(sub.id), k.futuresAccount(sub.acct), k.walletAvailable(master.user)];
  }
}
