import { toMinorDown } from '../../src/domain/decimal';
import type { RedisClient } from '../../src/platform/redis/connection';
import { scanKeys } from '../../src/platform/redis/scan-keys';
import type { Keys } from '../../src/platform/redis/keys';
import type { MarketStore } from '../../src/markets';
import type { WalletService } from '../../src/wallet';

/**
 * Money conservation for tests (docs/futures.md "Money conservation"): deposits − withdrawals =
 * Σ wallets (available + reserved) + Σ futures accounts (free + locked) + fees + insurance fund +
 * pnl pool, per currency. There is no withdrawal path, so the left side is what was deposited, plus
 * what an operator put into the insurance fund from outside (`DepositLedger.credit`).
 */

/**
 * Every minor unit of `currency` the engine holds, found by scanning the engine's keys: of every
 * engine shard given (with several shards a user's money is at home and in escrow on others).
 */
export async function moneyHeld(redis: RedisClient, shards: Keys | readonly Keys[], currency: string): Promise<bigint> {
  let total = 0n;
  for (const keys of Array.isArray(shards) ? shards : [shards]) total += await shardMoney(redis, keys, currency);
  return total;
}

async function shardMoney(redis: RedisClient, keys: Keys, currency: string): Promise<bigint> {
  let total = 0n;
  const accountPrefix = keys.futuresAccount('');
  for await (const { keys: found } of scanKeys(redis, `${keys.engine}*`)) {
    for (const key of found) {
      if (key.endsWith(':avail') || key.endsWith(':rsv')) total += BigInt((await redis.hget(key, currency)) ?? '0');
      else if (key.startsWith(accountPrefix)) {
        const [balance, locked, cur] = await redis.hmget(key, 'balance', 'locked', 'currency');
        if (cur === null || cur === currency) total += BigInt(balance ?? '0') + BigInt(locked ?? '0');
      }
    }
  }
  for (const pot of [keys.feesCollected(), keys.insuranceFund(), keys.futuresPnlPool()]) {
    total += BigInt((await redis.hget(pot, currency)) ?? '0');
  }
  return total;
}

/**
 * What came into the engine from outside, per currency, minor units: deposits as the wallet service
 * made them. One ledger per key prefix (the data one Redis namespace holds), fed by every test
 * context of that prefix from its creation (test/support/harness.ts), so deposits made through a
 * second context of the same data (a direct one beside a faulted one) count too.
 */
export class DepositLedger {
  private readonly totals = new Map<string, bigint>();
  private static readonly byPrefix = new Map<string, DepositLedger>();
  private static readonly counted = new WeakSet<WalletService>();

  /** The ledger of a context's key prefix; from now on it counts each deposit this context's wallet service completes. */
  static of(ctx: { config: { keyPrefix: string }; wallets: WalletService; markets: { store: MarketStore } }): DepositLedger {
    let ledger = DepositLedger.byPrefix.get(ctx.config.keyPrefix);
    if (!ledger) {
      ledger = new DepositLedger();
      DepositLedger.byPrefix.set(ctx.config.keyPrefix, ledger);
    }
    const wallets = ctx.wallets;
    if (!DepositLedger.counted.has(wallets)) {
      const into = ledger;
      const deposit = wallets.deposit.bind(wallets);
      wallets.deposit = async (userId, currencyCode, amount) => {
        const out = await deposit(userId, currencyCode, amount);
        const currency = await ctx.markets.store.getCurrency(currencyCode);
        into.credit(currencyCode, BigInt(toMinorDown(amount, currency?.decimals ?? 0).toFixed(0)));
        return out;
      };
      DepositLedger.counted.add(wallets);
    }
    return ledger;
  }

  /** Money put in from outside by other means (an operator's top-up of the insurance fund). */
  credit(currency: string, minor: bigint): void {
    this.totals.set(currency, this.total(currency) + minor);
  }

  total(currency: string): bigint {
    return this.totals.get(currency) ?? 0n;
  }
}

/** Asserts deposits − withdrawals = everything held, and returns what is held. */
export async function expectConserved(
  ctx: { redis: RedisClient; keys: Keys; shards?: { all(): readonly Keys[] } },
  ledger: DepositLedger,
  currency: string,
): Promise<bigint> {
  const held = await moneyHeld(ctx.redis, ctx.shards?.all() ?? ctx.keys, currency);
  expect({ currency, held }).toEqual({ currency, held: ledger.total(currency) });
  return held;
}
