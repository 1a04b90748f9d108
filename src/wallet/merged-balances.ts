import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';

/** A user's money per currency, minor units (integer text). */
export type MinorBalances = Map<string, { available: string; reserved: string }>;

/** A futures account's margin over every shard, minor units: free (`balance`) and in use (`locked`). */
export type MinorMargins = Map<string, { balance: string; locked: string }>;

interface ShardRead {
  avail: Record<string, string>;
  rsv: Record<string, string>;
  /** Per account asked for: its hash's balance and locked on this shard. */
  accounts: [string | null, string | null][];
  version: string | null;
  /** The shard's balance sequence (keys.balanceSeq), read with the hashes. */
  seq: string | null;
  /** Transfers sent from this shard and not yet acknowledged: id -> cur|amount|to[|acct]. */
  pending: Record<string, string>;
}

const ATTEMPTS = 5;

/**
 * A user's balances summed over every shard (home ledger and escrows), each transfer in flight
 * counted once by its id: as available money while its credit is not there yet, not at all once
 * it is. Two rounds: each shard read atomically, then each shard's transfer version read again
 * with the credits of the pending transfers. When no shard's version moved between the rounds,
 * the first round is one consistent moment for the user's transfers; otherwise it reads again.
 * A shard that cannot answer fails the read (503), never a partial sum.
 */
export async function mergedBalances(redis: RedisClient, shards: EngineShards, userId: string): Promise<MinorBalances> {
  return (await mergedMoney(redis, shards, userId, [])).wallet;
}

/**
 * mergedBalances, and with it the margin of the user's futures accounts `accountIds` summed over
 * every shard (each account's hash on each shard: docs/futures.md, "Futures on engine shards"), a
 * margin transfer in flight counted once as free margin of its account.
 */
export async function mergedMoney(
  redis: RedisClient,
  shards: EngineShards,
  userId: string,
  accountIds: string[],
): Promise<{ wallet: MinorBalances; accounts: MinorMargins }> {
  const { reads, inFlight } = await consistentRead(redis, shards, userId, accountIds);
  const out = new Map<string, { available: BigNumber; reserved: BigNumber }>();
  const add = (cur: string, field: 'available' | 'reserved', v: string) => {
    const b = out.get(cur) ?? { available: new BigNumber(0), reserved: new BigNumber(0) };
    b[field] = b[field].plus(v);
    out.set(cur, b);
  };
  const margins = new Map(accountIds.map((a) => [a, { balance: new BigNumber(0), locked: new BigNumber(0) }]));
  for (const r of reads) {
    for (const [cur, v] of Object.entries(r.avail)) add(cur, 'available', v);
    for (const [cur, v] of Object.entries(r.rsv)) add(cur, 'reserved', v);
    r.accounts.forEach(([balance, locked], i) => {
      const m = margins.get(accountIds[i]) as { balance: BigNumber; locked: BigNumber };
      m.balance = m.balance.plus(balance ?? 0);
      m.locked = m.locked.plus(locked ?? 0);
    });
  }
  for (const p of inFlight) {
    if (!p.acct) add(p.cur, 'available', p.amount);
    else {
      const m = margins.get(p.acct);
      if (m) m.balance = m.balance.plus(p.amount);
    }
  }
  return {
    wallet: new Map([...out].map(([cur, b]) => [cur, { available: b.available.toFixed(0), reserved: b.reserved.toFixed(0) }])),
    accounts: new Map([...margins].map(([a, m]) => [a, { balance: m.balance.toFixed(0), locked: m.locked.toFixed(0) }])),
  };
}

/**
 * A user's wallet as the private stream's balance snapshot takes it (docs/market-data.md, "Exact
 * balances"): each shard's part (its two hashes) with the shard's balance sequence read in the same
 * MULTI, and the wallet transfers in flight, all of one consistent moment (mergedMoney's two
 * rounds). The sum of the parts and the transfers in flight is mergedBalances'.
 */
export async function walletParts(redis: RedisClient, shards: EngineShards, userId: string): Promise<WalletParts> {
  const { reads, inFlight } = await consistentRead(redis, shards, userId, []);
  return {
    shards: reads.map((r) => ({ seq: Number(r.seq ?? 0), avail: r.avail, rsv: r.rsv })),
    inFlight: inFlight.filter((p) => !p.acct).map(({ id, cur, amount }) => ({ id, cur, amount })),
  };
}

/** WalletParts: per shard its sequence and hashes (minor units), and the wallet transfers in flight. */
export interface WalletParts {
  shards: { seq: number; avail: Record<string, string>; rsv: Record<string, string> }[];
  inFlight: { id: string; cur: string; amount: string }[];
}

/**
 * Each shard read atomically, then each shard's transfer version read again with the credits of
 * the pending transfers; when no version moved between the rounds, the first round is one
 * consistent moment for the user's transfers. Returns the first round and the transfers in flight
 * then (sent, not credited).
 */
async function consistentRead(
  redis: RedisClient,
  shards: EngineShards,
  userId: string,
  accountIds: string[],
): Promise<{ reads: ShardRead[]; inFlight: { id: string; cur: string; amount: string; to: number; acct: string }[] }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const first = await Promise.all(shards.all().map((k) => atomically(redis, (m) => {
      m.hgetall(k.walletAvailable(userId)).hgetall(k.walletReserved(userId)).hget(k.transferVersions(), userId)
        .hgetall(k.userTransfersPending(userId)).get(k.balanceSeq());
      for (const a of accountIds) m.hmget(k.futuresAccount(a), 'balance', 'locked');
    }).then(([avail, rsv, version, pending, seq, ...accounts]) => ({ avail, rsv, version, pending, seq, accounts }) as ShardRead)));
    const pending = first.flatMap((r) => Object.entries(r.pending).map(([id, v]) => {
      const [cur, amount, to, acct] = v.split('|');
      return { id, cur, amount, to: Number(to), acct: acct ?? '' };
    }));
    const second = await Promise.all(shards.all().map((k, shard) => {
      const mine = pending.filter((p) => p.to === shard);
      return atomically(redis, (m) => {
        m.hget(k.transferVersions(), userId);
        for (const p of mine) m.exists(k.transferCredit(p.id));
      }).then(([version, ...credited]) => ({ version, credited: new Map(mine.map((p, i) => [p.id, credited[i] === 1])) }));
    }));
    if (second.some((r, shard) => r.version !== first[shard].version)) continue;
    return { reads: first, inFlight: pending.filter((p) => !second[p.to].credited.get(p.id)) };
  }
  throw new AppError(503, 'BALANCES_BUSY', 'Balances kept moving between shards while being read; retry');
}

type Multi = ReturnType<RedisClient['multi']>;

/** One shard's reads as one MULTI (all its keys share the shard's slot); a failed shard fails the read. */
async function atomically(redis: RedisClient, build: (m: Multi) => void): Promise<unknown[]> {
  const m = redis.multi();
  build(m);
  const res = await m.exec();
  if (!res) throw new AppError(503, 'ENGINE_UNAVAILABLE', 'An engine shard did not answer; retry');
  return res.map(([err, v]) => {
    if (err) throw err;
    return v;
  });
}
