import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import type { Logger } from '../platform/config/logger';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { HomeRegistry } from './home-registry';
import { shardOfId } from '../domain/shard-ids';
import { newTransfer, type TransferLedger } from './transfer-ledger';
import type { TransferRelay } from './transfer-relay';

export interface EscrowPolicy {
  /** A top-up moves the shortfall plus this percent of it, so the next orders need none. */
  headroomPercent: number;
  /** Escrow untouched by a top-up this long, with nothing reserved, is swept home. */
  idleMs: number;
}

/**
 * The user's money on shards other than home (docs/architecture.md, "Engine shards: money"): topped up
 * from home when an order there needs more, swept home when idle or when home runs short. The api
 * that needs a top-up carries it to the end itself (an api-only deployment never waits on a worker).
 *
 * A futures account's margin is escrow the same way (`acct`): its home is the shard it is registered
 * on, the one its id names (its owner's home; shard 0 for an account from before the registry moved
 * home), where margin transfers land; on a market's shard its free margin is the `balance` of the
 * account's hash there (docs/futures.md, "Futures on engine shards").
 */
export class Escrow {
  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly homes: HomeRegistry,
    private readonly ledger: TransferLedger,
    private readonly relay: TransferRelay,
    private readonly policy: EscrowPolicy,
  ) {}

  /**
   * Makes `need` minor units of `cur` available to `userId` on `shard`, where an order just found
   * less: the shortfall comes from home (home short: the user's free escrow elsewhere is swept
   * home first). Throws 422 INSUFFICIENT_BALANCE when the user has not got it anywhere. `boost`
   * multiplies what is asked for beyond the shortfall (never what must be there): a retry after
   * concurrent orders took the last top-up.
   */
  async cover(userId: string, shard: number, cur: string, need: string, boost = 1, acct = ''): Promise<void> {
    const home = await this.homeOf(userId, acct);
    if (home === shard) {
      if (!(await this.sweepHome(userId, cur, [home], acct))) throw insufficient(cur, acct);
      return;
    }
    const held = await this.held(userId, shard, cur, acct);
    let shortfall = new BigNumber(need).minus(held ?? 0);
    // the escrow held enough when read: an order in between took it; move the whole need again
    if (shortfall.lte(0)) shortfall = new BigNumber(need);
    const want = shortfall.times(boost).plus(shortfall.times(this.policy.headroomPercent).div(100).integerValue(BigNumber.ROUND_CEIL));
    if (acct) await this.ledger.openAccount(acct, shard);
    const t = newTransfer(userId, cur, home, shard, acct);
    try {
      await this.ledger.send(t, 'exact', want.toFixed(0), shortfall.toFixed(0));
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE')) throw err;
      if (!(await this.sweepHome(userId, cur, [home, shard], acct))) throw insufficient(cur, acct);
      await this.ledger.send(t, 'exact', want.toFixed(0), shortfall.toFixed(0)).catch((again: unknown) => {
        throw again instanceof AppError && again.code === 'INSUFFICIENT_BALANCE' ? insufficient(cur, acct) : again;
      });
    }
    await this.relay.deliverSent(t);
  }

  /**
   * Makes sure `minor` of `cur` is available to `userId` on `shard` before a script there takes it
   * (a futures account funded from the wallet where it is registered, a copy master's capital on
   * shard 0; with `acct`, the account's own free margin, brought back from other shards; a spot
   * order whose escrow was short last time). True when it moved money.
   */
  async fund(userId: string, shard: number, cur: string, minor: string, acct = ''): Promise<boolean> {
    if (new BigNumber(await this.held(userId, shard, cur, acct)).gte(minor)) return false;
    await this.cover(userId, shard, cur, minor, 1, acct);
    return true;
  }

  /** Brings the user's free `cur` (the account's free margin, with `acct`) on every shard but `skip` home; true when anything moved. */
  async sweepHome(userId: string, cur: string, skip: number[], acct = ''): Promise<boolean> {
    const home = await this.homeOf(userId, acct);
    let moved = false;
    for (let shard = 0; shard < this.shards.count; shard++) {
      if (shard === home) continue;
      // money already on its way home (a sweep another process is delivering) is landed first
      if (await this.landPending(userId, cur, shard, home, acct)) moved = true;
      if (skip.includes(shard)) continue;
      // an account that never traded on this shard has nothing there (and no hash to debit)
      if (acct && !(await this.redis.exists(this.shards.keys(shard).futuresAccount(acct)))) continue;
      const t = newTransfer(userId, cur, shard, home, acct);
      if ((await this.ledger.send(t, 'all')) === null) continue;
      await this.relay.deliverSent(t);
      moved = true;
    }
    return moved;
  }

  /** Where the money is of record: the user's home, or the account's registry shard for an account's margin. */
  private homeOf(userId: string, acct: string): Promise<number> {
    return acct ? Promise.resolve(accountHome(acct)) : this.homes.of(userId);
  }

  /** What `userId` holds free on `shard`: the wallet's available `cur`, or the account's free margin. */
  private async held(userId: string, shard: number, cur: string, acct: string): Promise<string> {
    const k = this.shards.keys(shard);
    return (await (acct ? this.redis.hget(k.futuresAccount(acct), 'balance') : this.redis.hget(k.walletAvailable(userId), cur))) ?? '0';
  }

  /** Delivers the user's transfers of `cur` from `shard` to `home` that are still pending; true when there were any. */
  private async landPending(userId: string, cur: string, shard: number, home: number, acct: string): Promise<boolean> {
    const pending = await this.redis.hgetall(this.shards.keys(shard).userTransfersPending(userId));
    const mine = Object.entries(pending).filter(([, v]) => {
      const [c, , to, a] = v.split('|');
      return c === cur && Number(to) === home && (a ?? '') === acct;
    });
    for (const [id] of mine) await this.relay.deliver({ id, from: shard });
    return mine.length > 0;
  }

  /**
   * Sweeps home the escrow on `shard` that no top-up has touched for the idle time (the policy's,
   * or `idleMs`) and that holds no reservation (no open orders). Returns the transfers delivered.
   */
  async sweepIdle(shard: number, log?: Logger, idleMs = this.policy.idleMs): Promise<number> {
    const k = this.shards.keys(shard);
    const idleBefore = Date.now() - idleMs;
    let swept = 0;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(k.escrowTouched(), cursor, 'COUNT', 200);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) {
        const [field, touched] = [flat[i], Number(flat[i + 1])];
        if (touched > idleBefore) continue;
        const acct = field.startsWith(ACCOUNT_FIELD) ? field.slice(ACCOUNT_FIELD.length) : '';
        const [userId, cur] = acct ? await this.redis.hmget(k.futuresAccount(acct), 'user', 'currency') : [field, null];
        if (!userId) continue;
        const home = await this.homeOf(userId, acct);
        if (home === shard) continue;
        for (const c of cur ? [cur] : await this.redis.hkeys(k.walletAvailable(userId))) {
          const t = newTransfer(userId, c, shard, home, acct);
          try {
            if ((await this.ledger.send(t, 'idle', '0', '0', idleBefore)) === null) continue;
            await this.relay.deliverSent(t);
            swept++;
          } catch (err) {
            log?.warn({ err, transfer: t.id, shard }, 'idle sweep not delivered yet (the outbox keeps it)');
          }
        }
      }
    } while (cursor !== '0');
    return swept;
  }
}

/**
 * The shard a futures account's margin is of record on: the one it is registered on, which its id
 * names (src/domain/shard-ids.ts; src/futures/futures-keyring.ts).
 */
export const accountHome = (acct: string): number => shardOfId(acct);
/** How an account's field in `escrowTouched` starts (lua/wallet/sendTransfer-8.lua): `facct:<id>`. */
const ACCOUNT_FIELD = 'facct:';

const insufficient = (cur: string, acct: string) =>
  acct
    ? new AppError(422, 'INSUFFICIENT_MARGIN', 'Not enough available margin')
    : new AppError(422, 'INSUFFICIENT_BALANCE', `Not enough available balance: ${cur}`);
