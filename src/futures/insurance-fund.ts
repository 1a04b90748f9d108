import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { MarketStore } from '../markets';
import { decimal, fromMinor } from '../domain/decimal';

/** A position the fund took over in liquidations and has not unwound yet. */
export interface InsuranceFundPositionDto {
  currencyPairCode: string;
  isLong: boolean;
  amount: number;
  /** average price the fund holds it at: the marks of its takeovers (it paid the loss down to them) */
  entryPrice: number;
}

/** One margin currency's insurance fund as operators read it. */
export interface InsuranceFundDto {
  currencyCode: string;
  balance: number;
  positions: InsuranceFundPositionDto[];
}

/**
 * The insurance funds (docs/futures.md "Insurance fund"): one hash, a field per margin currency in
 * minor units, never negative; fields `position:<pair>` (lots, long positive) and `cost:<pair>`
 * (ticks x lots) hold what the fund took over and still holds.
 */
export class InsuranceFundReader {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
  ) {}

  async balances(): Promise<InsuranceFundDto[]> {
    const h = await this.redis.hgetall(this.keys.insuranceFund());
    const positions = await this.positions(h);
    const out: InsuranceFundDto[] = [];
    const codes = new Set([...Object.keys(h).filter((f) => !f.includes(':')), ...positions.keys()]);
    for (const code of [...codes].sort()) {
      const currency = await this.markets.getCurrency(code);
      if (currency) {
        out.push({ currencyCode: code, balance: fromMinor(h[code], currency.decimals), positions: positions.get(code) ?? [] });
      }
    }
    return out;
  }

  /** The fund's open positions by margin currency (the pair's quote currency). */
  private async positions(h: Record<string, string>): Promise<Map<string, InsuranceFundPositionDto[]>> {
    const out = new Map<string, InsuranceFundPositionDto[]>();
    for (const field of Object.keys(h).filter((f) => f.startsWith('position:')).sort()) {
      const lots = decimal(h[field]);
      const code = field.slice('position:'.length);
      const pair = await this.markets.getPair('futures', code);
      if (lots.isZero() || !pair) continue;
      const cost = decimal(h[`cost:${code}`] ?? '0');
      const list = out.get(pair.quoteCurrencyCode) ?? [];
      list.push({
        currencyPairCode: code,
        isLong: lots.isPositive(),
        amount: fromMinor(lots.abs().toFixed(), pair.digitsAmount),
        entryPrice: cost.div(lots.abs()).shiftedBy(-pair.digitsPrice).toNumber(),
      });
      out.set(pair.quoteCurrencyCode, list);
    }
    return out;
  }
}
