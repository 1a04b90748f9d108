import BigNumber from 'bignumber.js';
import type { RedisClient } from '../platform/redis/connection';
import type { EngineShards } from '../platform/redis/engine-shards';
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

/** One margin currency's insurance fund as operators read it: the total, and each engine shard's own fund. */
export interface InsuranceFundDto {
  currencyCode: string;
  balance: number;
  positions: InsuranceFundPositionDto[];
  /** Each engine shard's own fund, with the fees collected and the pnl pool of that shard in the same currency. */
  shards: { shard: number; balance: number; fees: number; pnlPool: number }[];
}

/**
 * The insurance funds (docs/futures.md "Insurance fund"): one hash, a field per margin currency in
 * minor units, never negative; fields `position:<pair>` (lots, long positive) and `cost:<pair>`
 * (ticks x lots) hold what the fund took over and still holds.
 */
export class InsuranceFundReader {
  constructor(
    private readonly redis: RedisClient,
    private readonly shards: EngineShards,
    private readonly markets: MarketStore,
  ) {}

  /** Every shard's fund is its own (liquidations on a shard draw on it alone); the total is their sum. */
  async balances(): Promise<InsuranceFundDto[]> {
    const funds = await Promise.all(this.shards.all().map((k) => this.redis.hgetall(k.insuranceFund())));
    const others = await Promise.all(
      this.shards.all().map(async (k) => ({ fees: await this.redis.hgetall(k.feesCollected()), pool: await this.redis.hgetall(k.futuresPnlPool()) })),
    );
    const positions = new Map<string, InsuranceFundPositionDto[]>();
    for (const h of funds) for (const [code, list] of await this.positions(h)) positions.set(code, [...(positions.get(code) ?? []), ...list]);
    const out: InsuranceFundDto[] = [];
    const codes = new Set([...funds.flatMap((h) => Object.keys(h).filter((f) => !f.includes(':'))), ...positions.keys()]);
    for (const code of [...codes].sort()) {
      const currency = await this.markets.getCurrency(code);
      if (!currency) continue;
      const total = funds.reduce((sum, h) => sum.plus(h[code] ?? 0), new BigNumber(0));
      out.push({
        currencyCode: code,
        balance: fromMinor(total.toFixed(0), currency.decimals),
        positions: positions.get(code) ?? [],
        shards: funds.map((h, shard) => ({
          shard,
          balance: fromMinor(h[code], currency.decimals),
          fees: fromMinor(others[shard].fees[code], currency.decimals),
          pnlPool: fromMinor(others[shard].pool[code], currency.decimals),
        })),
      });
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
