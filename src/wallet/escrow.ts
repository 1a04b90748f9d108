import BigNumber from 'bignumber.js';
import { AppError } from '../domain/errors';
import type { Logger } from '../platform/config/logger';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
import type { HomeRegistry } from './home-registry';
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
  async cover(userId: string, shard: number, cur: string, need: string, boost = 1): Promise<void> {
    const home = await this.homes.of(userId);
    if (home === shard) {
      if (!(await this.sweepHome(userId, cur, [home]))) throw insufficient(cur);
      return;
    }
    const held = await this.redis.hget(this.shards.keys(shard).walletAvailable(userId), cur);
    let shortfall = new BigNumber(need).minus(held ?? 0);
    // the escrow held enough when read: an order in between took it; move the whole need again
    if (shortfall.lte(0)) shortfall = new BigNumber(need);
    const want = shortfall.times(boost).plus(shortfall.times(this.policy.headroomPercent).div(100).integerValue(BigNumber.ROUND_CEIL));
    const t = newTransfer(userId, cur, home, shard);
    try {
      await this.ledger.send(t, 'exact', want.toFixed(0), shortfall.toFixed(0));
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'INSUFFICIENT_BALANCE')) throw err;
      if (!(await this.sweepHome(userId, cur, [home, shard]))) throw insufficient(cur);
      await this.ledger.send(t, 'exact', want.toFixed(0), shortfall.toFixed(0));
    }
    await this.relay.deliverSent(t);
  }

  /**
   * Makes sure `minor` of `cur` is available to `userId` on `shard` before a script there takes it
   * (a futures account funded from the wallet, a copy master's capital: futures run on shard 0;
   * a spot order whose escrow was short last time). True when it moved money.
   */
  async fund(userId: string, shard: number, cur: string, minor: string): Promise<boolean> {
    const held = await this.redis.hget(this.shards.keys(shard).walletAvailable(userId), cur);
    if (new BigNumber(held ?? 0).gte(minor)) return false;
    await this.cover(userId, shard, cur, minor);
    return true;
  }

  /** Brings the user's free `cur` on every shard but `skip` home; true when anything moved. */
  async sweepHome(userId: string, cur: string, skip: number[]): Promise<boolean> {
    const home = await this.homes.of(userId);
    let moved = false;
    for (let shard = 0; shard < this.shards.count; shard++) {
      if (shard === home) continue;
      // money already on its way home (a sweep another process is delivering) is landed first
      if (await this.landPending(userId, cur, shard, home)) moved = true;
      if (skip.includes(shard)) continue;
      const t = newTransfer(userId, cur, shard, home);
      if ((await this.ledger.send(t, 'all')) === null) continue;
      await this.relay.deliverSent(t);
      moved = true;
    }
    return moved;
  }

  /** Delivers the user's transfers of `cur` from `shard` to `home` that are still pending; true when there were any. */
  private async landPending(userId: string, cur: string, shard: number, home: number): Promise<boolean> {
    const pending = await this.redis.hgetall(this.shards.keys(shard).userTransfersPending(userId));
    const mine = Object.entries(pending).filter(([, v]) => {
      const [c, , to] = v.split('|');
      return c === cur && Number(to) === home;
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
        const [userId, touched] = [flat[i], Number(flat[i + 1])];
        if (touched > idleBefore) continue;
        const home = await this.homes.of(userId);
        if (home === shard) continue;
        for (const cur of await this.redis.hkeys(k.walletAvailable(userId))) {
          const t = newTransfer(userId, cur, shard, home);
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

const insufficient = (cur: string) => new AppError(422, 'INSUFFICIENT_BALANCE', `Not enough available balance: ${cur}`);
