import { idsByShard, shardIdBase, shardOfId } from '../domain/shard-ids';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
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

/**
 * Copy-trading records in Redis; every key comes from Keys. The master's side (masters, their
 * subscription lists, the follower users, the account -> subscription map, the board, closing
 * masters) lives on shard 0 (`keys`); a subscription's records (record, ledger, skips, the (master,
 * slave) claim, the slave's list, finishing and starting sets) at the follower's home, the shard its
 * id names (src/domain/shard-ids.ts: ids of subscriptions from before homes read as shard 0's).
 * Reads that span shards read each shard once; a shard that cannot answer fails the read (503).
 */
export class CopyStore {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    private readonly shards: Pick<EngineShards, 'keys' | 'all'>,
  ) {}

  /** The keys of the shard a subscription's records live on (its follower's home when it started). */
  homeKeys(subId: string | number): Keys {
    return this.shards.keys(shardOfId(String(subId)));
  }

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

  /**
   * A new subscription id at `home`: that shard's counter starts at its id base, so the id names the
   * shard (shard 0's counter is the one from before homes, unchanged).
   */
  async nextSubscriptionId(home = 0): Promise<string> {
    const key = this.shards.keys(home).copySubscriptionIds();
    if (home !== 0) await this.redis.set(key, String(shardIdBase(home)), 'NX');
    return String(await this.redis.incr(key));
  }

  /** The active subscription of the pair: its claim at the follower's home, or on shard 0 from before homes. */
  async activeSubscription(master: string, slave: string): Promise<SubscriptionRecord | null> {
    const ids = await Promise.all(this.shards.all().map((k) => this.redis.get(k.copyActiveSubscription(master, slave))));
    const id = ids.find((x) => x);
    return id ? this.subscription(id) : null;
  }

  async subscription(id: string | number): Promise<SubscriptionRecord | null> {
    if (!/^\d{1,16}$/.test(String(id))) return null;
    return asRecord<SubscriptionRecord>(await this.redis.hgetall(this.homeKeys(id).copySubscription(id)));
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

  /**
   * Subscriptions a finish left between its steps (every shard's finishing set), starts not linked to
   * their master yet (every shard's starting set) and masters a close did: a worker resumes them.
   */
  async unfinished(): Promise<{ subscriptions: string[]; masters: string[]; starting: string[] }> {
    const [finishing, starting, masters] = await Promise.all([
      Promise.all(this.shards.all().map((k) => this.redis.smembers(k.copyFinishing()))),
      Promise.all(this.shards.all().slice(1).map((k) => this.redis.smembers(k.copyStarting()))),
      this.redis.smembers(this.keys.copyMastersClosing()),
    ]);
    return { subscriptions: finishing.flat(), masters, starting: starting.flat() };
  }

  /** A start at a home other than shard 0 is linked to its master (linkCopySubscription): it leaves the starting set. */
  async started(subId: string): Promise<void> {
    await this.redis.srem(this.homeKeys(subId).copyStarting(), subId);
  }

  /** The subscriptions of these ids that exist, in their order: one round trip per shard they live on. */
  subscriptions(ids: string[]): Promise<SubscriptionRecord[]> {
    return this.hashes<SubscriptionRecord>(ids, (id) => this.homeKeys(id).copySubscription(id));
  }

  /** Newest first. */
  async masterSubscriptions(master: string): Promise<SubscriptionRecord[]> {
    const list = await this.redis.zrevrange(this.keys.copyMasterSubscriptions(master), 0, -1);
    return this.subscriptions(list);
  }

  /** A master's subscriptions whose records live at another shard than shard 0 (none with one shard). */
  async remoteSubscriptions(master: string): Promise<SubscriptionRecord[]> {
    if (this.shards.all().length === 1) return [];
    const list = await this.redis.zrange(this.keys.copyMasterSubscriptions(master), '0', '-1');
    return this.subscriptions(list.filter((id) => shardOfId(id) !== this.keys.shard));
  }

  /**
   * Newest first (opened, then id), over the slave's list on every shard: the follower's home and
   * shard 0, where subscriptions from before homes are.
   */
  async slaveSubscriptions(slave: string): Promise<SubscriptionRecord[]> {
    const lists = await Promise.all(this.shards.all().map((k) => this.redis.zrange(k.copySlaveSubscriptions(slave), '0', '-1')));
    const subs = await this.subscriptions(lists.flat());
    return subs.sort((a, b) => Number(b.opened) - Number(a.opened) || Number(b.id) - Number(a.id));
  }

  async ledger(subId: string): Promise<Ledger> {
    const h = await this.redis.hgetall(this.homeKeys(subId).copyLedger(subId));
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
    await Promise.all(
      [...idsByShard(skips.map((x) => x.sub)).values()].map(async (subs) => {
        const p = this.redis.pipeline();
        for (const { sub, reason } of skips.filter((x) => subs.includes(x.sub))) {
          const skip: CopySkip = { masterOrderId: Number(masterOrderId), tradeId: tradeId ? Number(tradeId) : null, reason, timestamp: new Date(at).toISOString() };
          p.hsetnx(this.homeKeys(sub).copySkips(sub), tradeId ? `${masterOrderId}:${tradeId}` : masterOrderId, JSON.stringify(skip));
        }
        for (const [err] of (await p.exec()) ?? []) if (err) throw err;
      }),
    );
  }

  async skips(subId: string): Promise<CopySkip[]> {
    const h = await this.redis.hgetall(this.homeKeys(subId).copySkips(subId));
    return Object.values(h)
      .map((v) => ({ tradeId: null, ...JSON.parse(v) }) as CopySkip)
      .sort((a, b) => a.masterOrderId - b.masterOrderId || (a.tradeId ?? 0) - (b.tradeId ?? 0));
  }

  /** Hashes of these ids in their order: one pipeline per shard the ids name (a pipeline stays on one slot's node). */
  private async hashes<T>(list: string[], key: (id: string) => string): Promise<T[]> {
    if (list.length === 0) return [];
    const found = new Map<string, Hash>();
    await Promise.all(
      [...idsByShard(list).values()].map(async (ids) => {
        const pipeline = this.redis.pipeline();
        for (const id of ids) pipeline.hgetall(key(id));
        const replies = (await pipeline.exec()) ?? [];
        replies.forEach(([err, h], i) => {
          if (err) throw err;
          found.set(ids[i], h as Hash);
        });
      }),
    );
    return list.map((id) => asRecord<T>(found.get(id) ?? {})).filter((x): x is Awaited<T> => x !== null) as T[];
  }
}
