import BigNumber from 'bignumber.js';
import { decimal, ppmToRate } from '../domain/decimal';
import { FuturesStatus } from '../domain/futures';
import type { Pair } from '../domain/market';
import type { RedisClient } from '../platform/redis/connection';
import type { FuturesKeyring } from './futures-keyring';
import type { FuturesPriceService } from './prices/futures-price.service';
import { futuresOrderOf } from './futures-order-record';

export interface ContractStats {
  /** Open long quantity in contracts (CoinMarketCap's unit); equal to the open short quantity. */
  openContracts: BigNumber;
  /** The same in base units, contracts × contractValue (CoinGecko's unit). */
  openInterest: BigNumber;
  /** Index price (median of the fresh sources, docs/futures.md), null before any source reported. */
  index: BigNumber | null;
  /** Mark price (median of three, refreshed each second), null before any price exists. */
  mark: BigNumber | null;
  /** Rate of the round in progress (settles at `nextFundingAt`), as a fraction. */
  nextFundingRate: number;
  /** Rate of the last settled round; the round in progress's rate before the first settlement. */
  fundingRate: number;
  nextFundingAt: number;
}

/** Read-only figures of a futures market that the aggregator contract feeds need. */
export class FuturesContractStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
    private readonly prices: FuturesPriceService,
  ) {}

  async stats(pair: Pair, now = Date.now()): Promise<ContractStats> {
    const [openLots, mark, index, ratePpm, settled] = await Promise.all([
      this.openLongLots(pair),
      this.prices.markTicks(pair),
      this.prices.indexTicks(pair),
      this.prices.fundingRatePpm(pair),
      this.redis.hget(this.keys.ofPair(pair.code).fundingState(pair.code), 'rate'),
    ]);
    const nextFundingRate = ppmToRate(ratePpm);
    const openContracts = openLots.shiftedBy(-pair.digitsAmount);
    return {
      openContracts,
      openInterest: openContracts.times(decimal(pair.contractValue ?? 1)),
      index: index ? new BigNumber(index).shiftedBy(-pair.digitsPrice) : null,
      mark: mark ? new BigNumber(mark).shiftedBy(-pair.digitsPrice) : null,
      nextFundingRate,
      fundingRate: settled !== null ? ppmToRate(settled) : nextFundingRate,
      nextFundingAt: this.prices.fundingRound(now).finish,
    };
  }

  /** Sum of the open quantity of the long positions in force (those of the longs' liquidation index), in lots. */
  private async openLongLots(pair: Pair): Promise<BigNumber> {
    const k = this.keys.ofPair(pair.code);
    const ids = await this.redis.zrange(k.futuresTrigger(pair.code, 'liqL'), '0', '-1');
    if (ids.length === 0) return new BigNumber(0);
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(k.order(id));
    let sum = new BigNumber(0);
    for (const [err, row] of (await pipe.exec()) ?? []) {
      if (err) throw err;
      const { side, status, openQty } = futuresOrderOf(row as Record<string, string>);
      if (side === 'buy' && Number(status) === FuturesStatus.InPosition && openQty) sum = sum.plus(openQty);
    }
    return sum;
  }
}
