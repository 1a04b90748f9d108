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

/** Every minor unit of `currency` the engine holds, found by scanning the engine's keys. */
export async function moneyHeld(redis: RedisClient, keys: Keys, currency: string): Promise<bigint> {
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

/** What came into the engine from outside, per currency, minor units: deposits as the wallet service made them. */
export class DepositLedger {
  private readonly totals = new Map<string, bigint>();
  private static readonly watched = new WeakMap<object, DepositLedger>();

  /** The ledger of a context, counting each deposit its wallet service completes (one ledger per context). */
  static of(ctx: { wallets: WalletService; markets: { store: MarketStore } }): DepositLedger {
    const known = DepositLedger.watched.get(ctx);
    if (known) return known;
    const ledger = new DepositLedger();
    const wallets = ctx.wallets;
    const deposit = wallets.deposit.bind(wallets);
    wallets.deposit = async (userId, currencyCode, amount) => {
      const out = await deposit(userId, currencyCode, amount);
      const currency = await ctx.markets.store.getCurrency(currencyCode);
      ledger.credit(currencyCode, BigInt(toMinorDown(amount, currency?.decimals ?? 0).toFixed(0)));
      return out;
    };
    DepositLedger.watched.set(ctx, ledger);
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
  ctx: { redis: RedisClient; keys: Keys },
  ledger: DepositLedger,
  currency: string,
): Promise<bigint> {
  const held = await moneyHeld(ctx.redis, ctx.keys, currency);
  expect({ currency, held }).toEqual({ currency, held: ledger.total(currency) });
  return held;
}
