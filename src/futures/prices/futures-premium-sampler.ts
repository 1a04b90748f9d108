import { fromMinor } from '../../domain/decimal';
import { premiumPpb } from '../../domain/futures-prices';
import type { Pair } from '../../domain/market';
import type { FuturesPriceEngine } from './futures-price-engine';
import type { FuturesPriceService } from './futures-price.service';
import { ImpactBook } from './impact-book';

/**
 * The funding premium index (docs/futures.md#index-mark-and-funding-the-binance-usd-m-scheme): every PREMIUM_SAMPLE_SECONDS one sample
 * P = [max(0, impactBid − I) − max(0, I − impactAsk)] / I, impact prices being the average fill of
 * the impact notional (200 / IMR at max leverage) walked through the futures book. A wash trade
 * moves no sample: only resting depth does, and only as far as it fills the impact notional.
 */
export class FuturesPremiumSampler {
  constructor(
    private readonly prices: FuturesPriceService,
    private readonly engine: FuturesPriceEngine,
    private readonly impact: ImpactBook,
    private readonly sampleSeconds: number,
  ) {}

  /** The premium now, ppb, or null without an index. */
  async premiumPpb(pair: Pair): Promise<number | null> {
    const index = await this.prices.indexTicks(pair);
    if (!index) return null;
    const { bid, ask } = await this.impact.prices('futures', pair, ImpactBook.notional(pair));
    return premiumPpb(fromMinor(index, pair.digitsPrice), bid, ask);
  }

  /** Records the sample of the slot `now` falls in (once per slot however many workers run); false without an index. */
  async sample(pair: Pair, now = Date.now()): Promise<boolean> {
    const slot = Math.floor(now / (this.sampleSeconds * 1000));
    // the tick runs every second: skip the book walk in a slot already sampled
    if (Number((await this.prices.premiumSlot(pair)) ?? -1) >= slot) return true;
    const p = await this.premiumPpb(pair);
    if (p === null) return false;
    await this.engine.recordPremiumSample(pair.code, slot, p);
    return true;
  }
}
