import BigNumber from 'bignumber.js';
import { fromMinor, toMinorDown } from '../domain/decimal';
import type { Pair } from '../domain/market';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';

/** Interest part of the funding rate per interval (0.01 %), and the clamp of the whole rate. */
export const FUNDING_BASE_PPM = 100;
export const FUNDING_CAP_PPM = 7500;

/**
 * Index, mark and funding rate of futures markets (DESIGN 4). Index = the last trade of the spot
 * market with the same pair code, else the admin index price, else the last futures trade; mark =
 * index. All prices here are in the futures pair's ticks (decimal strings), or null when unknown.
 */
export class FuturesPriceService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly markets: MarketStore,
    private readonly fundingIntervalSeconds: number,
  ) {}

  /** The index from outside the futures book (spot, then admin), or null. */
  async externalIndexTicks(pair: Pair): Promise<string | null> {
    const spot = await this.markets.getPair('spot', pair.code);
    if (spot) {
      const last = await this.redis.get(this.keys.lastPrice('spot', pair.code));
      if (last) return toMinorDown(fromMinor(last, spot.digitsPrice), pair.digitsPrice).toFixed(0);
    }
    return this.redis.get(this.keys.indexPrice(pair.code));
  }

  async markTicks(pair: Pair): Promise<string | null> {
    return (await this.externalIndexTicks(pair)) ?? this.redis.get(this.keys.lastPrice('futures', pair.code));
  }

  /**
   * Rate of the coming funding round, ppm of notional: 0.01 % plus the premium of the last futures
   * trade over the index, clamped to ±0.75 %. Positive: longs pay shorts.
   */
  async fundingRatePpm(pair: Pair): Promise<number> {
    const [index, last] = await Promise.all([
      this.externalIndexTicks(pair),
      this.redis.get(this.keys.lastPrice('futures', pair.code)),
    ]);
    let premium = 0;
    if (index && last && Number(index) > 0) {
      premium = new BigNumber(last).minus(index).div(index).shiftedBy(6).integerValue(BigNumber.ROUND_HALF_UP).toNumber();
    }
    return Math.max(-FUNDING_CAP_PPM, Math.min(FUNDING_CAP_PPM, FUNDING_BASE_PPM + premium));
  }

  /** The funding round `at` falls in: rounds are numbered from the epoch, one per interval. */
  fundingRound(at: number): { round: number; start: number; finish: number } {
    const len = this.fundingIntervalSeconds * 1000;
    const round = Math.floor(at / len);
    return { round, start: round * len, finish: (round + 1) * len };
  }
}
