import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';

/** A user's money per currency, minor units (integer text). */
export type MinorBalances = Map<string, { available: string; reserved: string }>;

interface ShardRead {
  avail: Record<string, string>;
  rsv: Record<string, string>;
  version: string | null;
  /** Transfers sent from this shard and not yet acknowledged: id -> cur|amount|to. */
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
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const first = await Promise.all(shards.all().map((k) => atomically(redis, (m) => {
      m.hgetall(k.walletAvailable(userId)).hgetall(k.walletReserved(userId)).hget(k.transferVersions(), userId)
        .hgetall(k.userTransfersPending(userId));
    }).then(([avail, rsv, version, pending]) => ({ avail, rsv, version, pending }) as ShardRead)));
    const pending = first.flatMap((r) => Object.entries(r.pending).map(([id, v]) => {
      const [cur, amount, to] = v.split('|');
      return { id, cur, amount, to: Number(to) };
    }));
    const second = await Promise.all(shards.all().map((k, shard) => {
      const mine = pending.filter((p) => p.to === shard);
      return atomically(redis, (m) => {
        m.hget(k.transferVersions(), userId);
        for (const p of mine) m.exists(k.transferCredit(p.id));
      }).then(([version, ...credited]) => ({ version, credited: new Map(mine.map((p, i) => [p.id, credited[i] === 1])) }));
    }));
    if (second.some((r, shard) => r.version !== first[shard].version)) continue;
    const out = new Map<string, { available: BigNumber; reserved: BigNumber }>();
    const add = (cur: string, field: 'available' | 'reserved', v: string) => {
      const b = out.get(cur) ?? { available: new BigNumber(0), reserved: new BigNumber(0) };
      b[field] = b[field].plus(v);
      out.set(cur, b);
    };
    for (const r of first) {
      for (const [cur, v] of Object.entries(r.avail)) add(cur, 'available', v);
      for (const [cur, v] of Object.entries(r.rsv)) add(cur, 'reserved', v);
    }
    for (const p of pending) if (!second[p.to].credited.get(p.id)) add(p.cur, 'available', p.amount);
    return new Map([...out].map(([cur, b]) => [cur, { available: b.available.toFixed(0), reserved: b.reserved.toFixed(0) }]));
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
