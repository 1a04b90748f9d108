import BigNumber from 'bignumber.js';
import { isUsdPegged } from '../domain/usd-peg';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';

/**
 * US dollars per unit of a currency, for the feeds' USD figures (docs/aggregator-feeds.md): 1 for
 * USD and the USD stablecoins (a quote in USDT is taken as dollars), else the last trade of a spot
 * market of this exchange pricing the currency in a USD stablecoin, else unknown (null).
 */
export class UsdRates {
  constructor(
    private readonly markets: MarketStore,
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async rate(code: string): Promise<BigNumber | null> {
    if (isUsdPegged(code)) return new BigNumber(1);
    const pairs = (await this.markets.listPairs('spot')).filter(
      (p) => p.baseCurrencyCode === code && isUsdPegged(p.quoteCurrencyCode),
    );
    for (const p of pairs) {
      const last = await this.redis.get(this.markets.knownKeysOf('spot', p.code).lastPrice('spot', p.code));
      if (last) return new BigNumber(last).shiftedBy(-p.digitsPrice);
    }
    return null;
  }

  /** Rates of several currencies, each looked up once. */
  async rates(codes: string[]): Promise<Map<string, BigNumber | null>> {
    const unique = [...new Set(codes)];
    const found = await Promise.all(unique.map((c) => this.rate(c)));
    return new Map(unique.map((c, i) => [c, found[i]]));
  }
}
