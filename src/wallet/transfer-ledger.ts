import { randomUUID } from 'node:crypto';
import { AppError, engineError } from '../domain/errors';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { Keys } from '../platform/redis/keys';
import { shardOfId } from '../domain/shard-ids';
import type { Scripts } from '../platform/redis/scripts';
import { isRedisUnavailable } from '../platform/redis/unavailable';

/**
 * One transfer of money between two engine shards; its id is random, never a counter. `user` is
 * the one credited at `to`: the sender too for a move of the user's own money, the payee of a
 * payment from one user to another (a copy fee or profit share, lua/includes/copy/settle.lua).
 */
export interface Transfer {
  id: string;
  user: string;
  /** `move` (one user's own money) or `payment` (from `payer` to `user`); read from the outbox. */
  kind?: 'move' | 'payment';
  payer?: string;
  cur: string;
  from: number;
  to: number;
  /** Minor units: known once the debit ran (step 1 may take less than asked). */
  amount?: string;
  /**
   * A futures account's margin moves (its free balance, between the shard it is registered on, its
   * id's, and the account's hash on a market's shard); absent or '' for the wallet.
   */
  acct?: string;
}

export type SendMode = 'exact' | 'all' | 'idle';

/** How long a done transfer record and a credit record are kept: far past any redelivery. */
export const TRANSFER_RECORD_SECONDS = 7 * 24 * 3600;

export const newTransfer = (user: string, cur: string, from: number, to: number, acct = ''): Transfer => ({
  id: randomUUID(), user, cur, from, to, acct,
});

/** Where a transfer's money sits on shard `k`: the wallet's available hash, or the account's hash. */
const pocketKey = (k: Keys, t: Pick<Transfer, 'user' | 'acct'>): string => (t.acct ? k.futuresAccount(t.acct) : k.walletAvailable(t.user));

/**
 * The four steps of a transfer as typed calls of lua/wallet/{send,mark}Transfer and {credit,ack}Transfers. Each
 * step is idempotent by the transfer id, so a step whose reply was lost is simply sent again.
 */
export class TransferLedger {
  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly scripts: Scripts,
    /** MAXLEN of the user event streams a wallet's transfer appends to (its money in flight, then arrived). */
    private readonly streamMaxLen: number,
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
          pocketKey(k, t), t.acct ? pocketKey(k, t) : k.walletReserved(t.user), k.escrowTouched(), k.transfer(t.id), k.outbox(),
          k.userTransfersPending(t.user), k.transferVersions(), k.userEvents(),
        ],
        [t.id, t.user, t.cur, want, least, mode, t.from, t.to, Date.now(), idleBeforeMs, t.acct ?? '', this.streamMaxLen],
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
    const [, user, cur, amount, from, to, state, acct] = r;
    return { id: t.id, user, cur, amount, from: Number(from), to: Number(to), state, acct: acct ?? '' };
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
    const keys = [k.escrowTouched(), k.transferVersions(), k.userEvents()];
    const args: (string | number)[] = [Date.now(), TRANSFER_RECORD_SECONDS, this.streamMaxLen];
    for (const { t, topUp } of items) {
      keys.push(k.transferCredit(t.id), pocketKey(k, t));
      args.push(t.user, t.cur, t.amount as string, topUp ? 1 : 0, t.acct ?? '', t.id);
    }
    return this.scripts.runOn<string[][]>(link, 'creditTransfers', keys, args);
  }

  /**
   * Copies a futures account's record from the shard it is registered on (the one its id names) to
   * `shard`, where its margin is about to go (lua/futures/installFuturesAccount-1.lua; idempotent,
   * the money fields untouched).
   */
  async openAccount(acct: string, shard: number): Promise<void> {
    const k = this.shards.keys(shard);
    const registry = shardOfId(acct);
    if (shard === registry || (await this.redis.hexists(k.futuresAccount(acct), 'user'))) return;
    const record = registry < this.shards.count ? await this.redis.hgetall(this.shards.keys(registry).futuresAccount(acct)) : {};
    if (!record.user) throw new AppError(404, 'ACCOUNT_NOT_FOUND', 'Futures account not found');
    await again(() => this.scripts.run('installFuturesAccount', [k.futuresAccount(acct)], Object.entries(record).flat()));
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
        id: f.id, user: f.user, cur: f.cur, amount: f.amount, from: Number(f.from), to: Number(f.to), acct: f.acct ?? '',
        kind: f.kind === 'payment' ? 'payment' : 'move', payer: f.payer ?? f.user, sentMs: Number(entryId.split('-')[0]),
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
