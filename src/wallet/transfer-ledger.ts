import { randomUUID } from 'node:crypto';
import { AppError, engineError } from '../domain/errors';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Scripts } from '../platform/redis/scripts';
import { isRedisUnavailable } from '../platform/redis/unavailable';

/** One transfer of a user's money between two engine shards; its id is random, never a counter. */
export interface Transfer {
  id: string;
  user: string;
  cur: string;
  from: number;
  to: number;
  /** Minor units: known once the debit ran (step 1 may take less than asked). */
  amount?: string;
}

export type SendMode = 'exact' | 'all' | 'idle';

/** How long a done transfer record and a credit record are kept: far past any redelivery. */
export const TRANSFER_RECORD_SECONDS = 7 * 24 * 3600;

export const newTransfer = (user: string, cur: string, from: number, to: number): Transfer => ({
  id: randomUUID(), user, cur, from, to,
});

/**
 * The four steps of a transfer as typed calls of lua/wallet/{send,mark}Transfer and {credit,ack}Transfers. Each
 * step is idempotent by the transfer id, so a step whose reply was lost is simply sent again.
 */
export class TransferLedger {
  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
  ) {}

  /**
   * Step 1 at `t.from`: debit, record, outbox. Returns the amount debited, or null when there was
   * nothing to move (modes all and idle); exact mode below `least` is a 422 INSUFFICIENT_BALANCE.
   */
  async send(t: Transfer, mode: SendMode, want = '0', least = '0', idleBeforeMs = 0): Promise<string | null> {
    const k = this.shards.keys(t.from);
    const reply = await again(() =>
      this.scripts.run<string[]>(
        'sendTransfer',
        [
          k.walletAvailable(t.user), k.walletReserved(t.user), k.escrowTouched(), k.transfer(t.id), k.outbox(),
          k.userTransfersPending(t.user), k.transferVersions(),
        ],
        [t.id, t.user, t.cur, want, least, mode, t.from, t.to, Date.now(), idleBeforeMs],
      ),
    );
    if (reply[0] === 'ERR') throw engineError(reply[1], reply[2]);
    if (reply[0] === 'NONE') return null;
    t.amount = reply[1];
    return t.amount;
  }

  /** Step 2 on the relay's link to `t.from`: null when the transfer is gone there (lost with its debit). */
  async mark(link: RedisClient, t: Pick<Transfer, 'id' | 'from'>): Promise<(Transfer & { state: string }) | null> {
    const r = await this.scripts.runOn<string[]>(link, 'markTransfer', [this.shards.keys(t.from).transfer(t.id)], []);
    if (r[0] === 'GONE') return null;
    const [, user, cur, amount, from, to, state] = r;
    return { id: t.id, user, cur, amount, from: Number(from), to: Number(to), state };
  }

  /** Step 3 on the relay's link to `t.to`; true when this delivery credited, false when one before did. */
  async credit(link: RedisClient, t: Transfer, topUp: boolean): Promise<boolean> {
    return creditedOrThrow((await this.creditAll(link, t.to, [{ t, topUp }]))[0]);
  }

  /**
   * Step 3 of several transfers to `shard` in one script call, on the relay's link to it: one reply
   * per transfer (`creditedOrThrow` reads it), so one refused credit does not fail the others.
   */
  async creditAll(link: RedisClient, shard: number, items: { t: Transfer; topUp: boolean }[]): Promise<string[][]> {
    const k = this.shards.keys(shard);
    const keys = [k.escrowTouched(), k.transferVersions()];
    const args: (string | number)[] = [Date.now(), TRANSFER_RECORD_SECONDS];
    for (const { t, topUp } of items) {
      keys.push(k.transferCredit(t.id), k.walletAvailable(t.user));
      args.push(t.user, t.cur, t.amount as string, topUp ? 1 : 0);
    }
    return this.scripts.runOn<string[][]>(link, 'creditTransfers', keys, args);
  }

  /** Step 4 at `t.from`. */
  async ack(t: Transfer): Promise<void> {
    await this.ackAll(t.from, [t]);
  }

  /** Step 4 of several transfers sent from `shard`, in one script call. */
  async ackAll(shard: number, ts: Transfer[]): Promise<void> {
    const k = this.shards.keys(shard);
    const keys = [k.outbox(), k.transferVersions()];
    const args: (string | number)[] = [TRANSFER_RECORD_SECONDS];
    for (const t of ts) {
      keys.push(k.transfer(t.id), k.userTransfersPending(t.user));
      args.push(t.id);
    }
    await again(() => this.scripts.run('ackTransfers', keys, args));
  }

  /** Transfers sent from `shard` and not yet acknowledged, oldest first. */
  async outbox(shard: number, count = 100): Promise<(Transfer & { sentMs: number })[]> {
    const entries = await this.redis.xrange(this.shards.keys(shard).outbox(), '-', '+', 'COUNT', count);
    return entries.map(([entryId, fields]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
      return {
        id: f.id, user: f.user, cur: f.cur, amount: f.amount, from: Number(f.from), to: Number(f.to),
        sentMs: Number(entryId.split('-')[0]),
      };
    });
  }
}

/** One transfer's reply of creditTransfers: true when credited now, false when credited before. */
export function creditedOrThrow(r: string[]): boolean {
  if (r[0] === 'ERR') throw engineError(r[1], r[2]);
  return r[0] === 'OK';
}

/** A step whose reply was lost is sent once more: the transfer id makes the repeat harmless. */
async function again<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!isRedisUnavailable(err)) throw err;
    await new Promise((r) => setTimeout(r, 100));
    try {
      return await step();
    } catch (second) {
      if (isRedisUnavailable(second)) throw new AppError(503, 'ENGINE_UNAVAILABLE', 'An engine shard did not answer; retry');
      throw second;
    }
  }
}
