import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { MarketStore } from '../markets';
import { fromMinor } from '../domain/decimal';

/** One margin currency's insurance fund as operators read it. */
export interface InsuranceFundDto {
  currencyCode: string;
  balance: number;
}

/**
 * The insurance funds (docs/futures.md "Insurance fund"): one hash, a field per margin currency in
 * minor units, never negative; fields `position:<pair>` hold what the fund took over and are not balances.
 */
export class InsuranceFundReader {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
  ) {}

  async balances(): Promise<InsuranceFundDto[]> {
    const h = await this.redis.hgetall(this.keys.insuranceFund());
    const out: InsuranceFundDto[] = [];
    for (const code of Object.keys(h).filter((f) => !f.includes(':')).sort()) {
      const currency = await this.markets.getCurrency(code);
      if (currency) out.push({ currencyCode: code, balance: fromMinor(h[code], currency.decimals) });
    }
    return out;
  }
}
