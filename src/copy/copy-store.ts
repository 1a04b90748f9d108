import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';

/** A master strategy record (copy tag); money fields are minor units of `currency`. */
export interface MasterRecord {
  id: string;
  user: string;
  name: string;
  strategyName: string;
  strategyDescription: string;
  leverage: string;
  currency: string;
  slaveIncomePercentage: string;
  commissionRate: string;
  socialAUrl: string;
  socialBUrl: string;
  socialCUrl: string;
  socialDUrl: string;
  initial: string;
  cts: string;
  closedAt: string;
  /** Decimals of `currency` (the board's aum score is in currency units). */
  dec?: string;
  /** Closing: between beginMasterClose and completeMasterClose (takes no followers). */
  status: 'Active' | 'Closing' | 'Closed';
}

export interface SlaveRecord {
  id: string;
  user: string;
  name: string;
  leverage: string;
  currency: string;
  cts: string;
}

/**
 * One subscription; `acct` is the futures account that holds its margin and mirrored positions.
 * Written only by the lua/copy scripts; `state` Active -> Finishing -> Finished (`active` '1' while Active).
 */
export interface SubscriptionRecord {
  id: string;
  master: string;
  slave: string;
  user: string;
  acct: string;
  currency: string;
  margin: string;
  initial: string;
  opened: string;
  active: '1' | '0';
  state: 'Active' | 'Finishing' | 'Finished';
  closeOrders?: '0' | '1';
  stopLossPercent: string;
  takeProfitPercent: string;
  maxSlippagePercent: string;
  closed: string;
  reason: string;
  settledEquity: string;
  profit: string;
}

/** The subscription's money ledger (engine tag), minor units. */
export interface Ledger {
  netIn: string;
  commission: string;
  shared: string;
  hwm: string;
  feeTs: string;
  owedFee: string;
  owedShare: string;
}

/** A master fill (or order, tradeId null) a subscription did not mirror (the skips endpoint). */
export interface CopySkip {
  masterOrderId: number;
  tradeId: number | null;
  reason: string;
  timestamp: string;
}

type Hash = Record<string, string>;
const asRecord = <T>(h: Hash): T | null => (h.id ? (h as unknown as T) : null);
const ids = (list: string[]) => list.sort((a, b) => Number(a) - Number(b));

/** Copy-trading records in Redis under their own hash tag; every key comes from Keys. */
export class CopyStore {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
  ) {}

  async master(id: string | number): Promise<MasterRecord | null> {
    return /^\d{1,16}$/.test(String(id)) ? asRecord<MasterRecord>(await this.redis.hgetall(this.keys.copyMaster(id))) : null;
  }

  async saveMaster(m: MasterRecord): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.copyMaster(m.id), m as unknown as Hash)
      .zadd(this.keys.copyMasters(), m.cts, m.id)
      .sadd(this.keys.userCopyMasters(m.user), m.id)
      .sadd(this.keys.copyMasterUsers(), m.user)
      .exec();
  }

  /** After completeMasterClose: the owner stops being a master user when no other strategy is open. */
  async forgetClosedMaster(m: MasterRecord): Promise<void> {
    const still = (await this.userMasters(m.user)).some((x) => x.status === 'Active' && x.id !== m.id);
    if (!still) await this.redis.srem(this.keys.copyMasterUsers(), m.user);
  }

  async allMasters(): Promise<MasterRecord[]> {
    return this.hashes<MasterRecord>(await this.redis.zrange(this.keys.copyMasters(), '0', '-1'), (id) => this.keys.copyMaster(id));
  }

  /** Masters by id, in the order given (one round trip); ids without a record are left out. */
  async masters(list: string[]): Promise<MasterRecord[]> {
    return this.hashes<MasterRecord>(list, (id) => this.keys.copyMaster(id));
  }

  async setMasterDecimals(id: string, decimals: number): Promise<void> {
    await this.redis.hset(this.keys.copyMaster(id), 'dec', String(decimals));
  }

  async userMasters(userId: string): Promise<MasterRecord[]> {
    const list = ids(await this.redis.smembers(this.keys.userCopyMasters(userId)));
    return this.hashes<MasterRecord>(list, (id) => this.keys.copyMaster(id));
  }

  async slave(id: string | number): Promise<SlaveRecord | null> {
    return /^\d{1,16}$/.test(String(id)) ? asRecord<SlaveRecord>(await this.redis.hgetall(this.keys.copySlave(id))) : null;
  }

  async saveSlave(s: SlaveRecord): Promise<void> {
    await this.redis
      .multi()
      .hset(this.keys.copySlave(s.id), s as unknown as Hash)
      .sadd(this.keys.userCopySlaves(s.user), s.id)
      .exec();
  }

  /** The slave stops being listed; its subscriptions' history stays readable by id. */
  async deleteSlave(s: SlaveRecord): Promise<void> {
    await this.redis.multi().srem(this.keys.userCopySlaves(s.user), s.id).del(this.keys.copySlave(s.id)).exec();
  }

  async userSlaves(userId: string): Promise<SlaveRecord[]> {
    const list = ids(await this.redis.smembers(this.keys.userCopySlaves(userId)));
    return this.hashes<SlaveRecord>(list, (id) => this.keys.copySlave(id));
  }

  async nextSubscriptionId(): Promise<string> {
    return String(await this.redis.incr(this.keys.copySubscriptionIds()));
  }

  async activeSubscription(master: string, slave: string): Promise<SubscriptionRecord | null> {
    const id = await this.redis.get(this.keys.copyActiveSubscription(master, slave));
    return id ? this.subscription(id) : null;
  }

  async subscription(id: string | number): Promise<SubscriptionRecord | null> {
    return asRecord<SubscriptionRecord>(await this.redis.hgetall(this.keys.copySubscription(id)));
  }

  /** Which of `users` own a master strategy and which follow one, in one round trip. */
  async copyRoles(users: string[]): Promise<{ masters: Set<string>; followers: Set<string> }> {
    if (users.length === 0) return { masters: new Set(), followers: new Set() };
    const [[e1, m], [e2, f]] = ((await this.redis
      .pipeline()
      .smismember(this.keys.copyMasterUsers(), ...users)
      .smismember(this.keys.copyFollowerUsers(), ...users)
      .exec()) ?? []) as [Error | null, number[]][];
    if (e1 || e2) throw e1 ?? e2;
    return { masters: new Set(users.filter((_, i) => m[i] === 1)), followers: new Set(users.filter((_, i) => f[i] === 1)) };
  }

  /** The subscription whose futures account this is, or null. */
  async subscriptionOfAccount(accountId: string): Promise<SubscriptionRecord | null> {
    const id = await this.redis.hget(this.keys.copySubscriptionAccounts(), accountId);
    return id ? this.subscription(id) : null;
  }

  /** Subscriptions a finish left between its steps, and masters a close did: a worker resumes them. */
  async unfinished(): Promise<{ subscriptions: string[]; masters: string[] }> {
    const [subscriptions, masters] = await Promise.all([
      this.redis.smembers(this.keys.copyFinishing()),
      this.redis.smembers(this.keys.copyMastersClosing()),
    ]);
    return { subscriptions, masters };
  }

  /** The subscriptions of these ids that exist, in one round trip. */
  subscriptions(ids: string[]): Promise<SubscriptionRecord[]> {
    return this.hashes<SubscriptionRecord>(ids, (id) => this.keys.copySubscription(id));
  }

  /** Newest first. */
  async masterSubscriptions(master: string): Promise<SubscriptionRecord[]> {
    const list = await this.redis.zrevrange(this.keys.copyMasterSubscriptions(master), 0, -1);
    return this.hashes<SubscriptionRecord>(list, (id) => this.keys.copySubscription(id));
  }

  /** Newest first. */
  async slaveSubscriptions(slave: string): Promise<SubscriptionRecord[]> {
    const list = await this.redis.zrevrange(this.keys.copySlaveSubscriptions(slave), 0, -1);
    return this.hashes<SubscriptionRecord>(list, (id) => this.keys.copySubscription(id));
  }

  async ledger(subId: string): Promise<Ledger> {
    const h = await this.redis.hgetall(this.keys.copyLedger(subId));
    return {
      netIn: h.netIn ?? '0', commission: h.commission ?? '0', shared: h.shared ?? '0', hwm: h.hwm ?? '0', feeTs: h.feeTs ?? '',
      owedFee: h.owedFee ?? '0', owedShare: h.owedShare ?? '0',
    };
  }

  /**
   * The ids of a master's subscriptions opened up to `at`, oldest first: the same list however
   * often it is read (subscriptions are never removed from the index), so a fan-out cut into
   * chunks from it cuts the same chunks again.
   */
  subscriptionIdsUpTo(master: string, at: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.copyMasterSubscriptions(master), '-inf', at);
  }

  /**
   * Records, in one round trip, master fills (`tradeId`) or orders subscriptions did not mirror;
   * the first reason recorded for each stays (a replay records nothing new).
   */
  async recordSkips(skips: { sub: string; reason: string }[], masterOrderId: string, at: number, tradeId?: string): Promise<void> {
    if (skips.length === 0) return;
    const p = this.redis.pipeline();
    for (const { sub, reason } of skips) {
      const skip: CopySkip = { masterOrderId: Number(masterOrderId), tradeId: tradeId ? Number(tradeId) : null, reason, timestamp: new Date(at).toISOString() };
      p.hsetnx(this.keys.copySkips(sub), tradeId ? `${masterOrderId}:${tradeId}` : masterOrderId, JSON.stringify(skip));
    }
    for (const [err] of (await p.exec()) ?? []) if (err) throw err;
  }

  async skips(subId: string): Promise<CopySkip[]> {
    const h = await this.redis.hgetall(this.keys.copySkips(subId));
    return Object.values(h)
      .map((v) => ({ tradeId: null, ...JSON.parse(v) }) as CopySkip)
      .sort((a, b) => a.masterOrderId - b.masterOrderId || (a.tradeId ?? 0) - (b.tradeId ?? 0));
  }

  private async hashes<T>(list: string[], key: (id: string) => string): Promise<T[]> {
    if (list.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of list) pipeline.hgetall(key(id));
    return ((await pipeline.exec()) ?? []).map(([, h]) => asRecord<T>(h as Hash)).filter((x): x is Awaited<T> => x !== null) as T[];
  }
}
