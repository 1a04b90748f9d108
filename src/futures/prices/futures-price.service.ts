import {
  BASIS_SAMPLES,
  FUNDING_INTEREST_PPM,
  freshSources,
  fundingCapPpm,
  fundingRatePpm,
  indexFromSources,
  markBandPpm,
  markTicks,
  type IndexSource,
} from '../../domain/futures-prices';
import type { Pair } from '../../domain/market';
import type { MarketStore } from '../../markets';
import type { RedisClient } from '../../platform/redis/connection';
import type { FuturesKeyring } from '../futures-keyring';
import type { FuturesPriceEngine } from './futures-price-engine';
import { ImpactBook } from './impact-book';

export interface PriceSettings {
  fundingIntervalSeconds: number;
  indexStaleSeconds: number;
}

/** ppm of a pair's maintenance margin rate (a fraction). */
const ppm = (rate: number | undefined): number => Math.round((rate ?? 0) * 1e6);

/**
 * Index, mark and funding rate of futures markets (docs/futures.md). Index = median of the
 * fresh outside sources (operator/oracle pushes) and the same pair's spot impact mid held near them;
 * mark = median(index carried by the last funding rate, index + 30 s basis average, last futures
 * trade; the last two held within a band of the index), computed and stored each
 * second (refreshMark), read by everything that values a position (markTicks). Prices are the
 * futures pair's ticks as decimal strings, or null when unknown.
 */
export class FuturesPriceService {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
    private readonly markets: MarketStore,
    private readonly engine: FuturesPriceEngine,
    private readonly impact: ImpactBook,
    private readonly settings: PriceSettings,
  ) {}

  /** Records one source's price now (the admin route; `source` defaults to admin). */
  async recordIndexSource(pair: Pair, source: string, ticks: string, now = Date.now()): Promise<void> {
    await this.engine.recordIndexSource(pair.code, source, ticks, now);
  }

  /** The pushed sources of a pair, with their times. */
  async indexSources(pair: Pair): Promise<IndexSource[]> {
    const raw = await this.redis.hgetall(this.keys.ofPair(pair.code).indexSources(pair.code));
    return Object.entries(raw).map(([name, v]) => {
      const [ticks, at] = v.split(':');
      return { name, ticks: BigInt(ticks), at: Number(at) };
    });
  }

  /**
   * Index now (docs/futures.md "Index price"): the median of the fresh outside sources, with the
   * same pair's spot market as a weak source (its impact mid, held within 0.5 % of their median);
   * the last stored index when no outside source is fresh, whatever the spot book shows.
   */
  async computeIndex(pair: Pair, now = Date.now()): Promise<bigint | null> {
    const sources = await this.indexSources(pair);
    const outside = freshSources(sources, now, this.settings.indexStaleSeconds * 1000).map((s) => s.ticks);
    const index = indexFromSources(outside, outside.length ? await this.spotImpactMid(pair) : null);
    if (index !== null) return index;
    const last = await this.redis.get(this.keys.ofPair(pair.code).indexPrice(pair.code));
    return last ? BigInt(last) : null;
  }

  /** The same pair's spot impact mid in the futures pair's ticks; null without a spot market or its depth. */
  private async spotImpactMid(pair: Pair): Promise<bigint | null> {
    const spot = await this.markets.getPair('spot', pair.code);
    if (!spot) return null;
    return this.impact.midTicks('spot', spot, ImpactBook.notional(pair), pair.digitsPrice);
  }

  /** The stored index (as of the last mark refresh); computed now when none is stored yet; null without sources. */
  async indexTicks(pair: Pair): Promise<string | null> {
    const stored = await this.redis.get(this.keys.ofPair(pair.code).indexPrice(pair.code));
    return stored ?? (await this.computeIndex(pair))?.toString() ?? null;
  }

  /**
   * Computes index and mark now and stores them for this second, with this second's basis sample:
   * futures impact mid − index, or 0 while the futures book cannot fill the impact notional on both
   * sides (thin quotes are no evidence of a premium). Without any index the mark is the last futures
   * trade. Returns the mark, or null when no price exists at all.
   */
  async refreshMark(pair: Pair, now = Date.now()): Promise<string | null> {
    const [index, mid, last, stored, rate] = await Promise.all([
      this.computeIndex(pair, now),
      this.impact.midTicks('futures', pair, ImpactBook.notional(pair), pair.digitsPrice),
      this.redis.get(this.keys.ofPair(pair.code).lastPrice('futures', pair.code)),
      this.redis.hmget(this.keys.ofPair(pair.code).markPrice(pair.code), 'sec'),
      this.lastFundingRatePpm(pair),
    ]);
    const second = Math.floor(now / 1000);
    if (index === null) {
      if (!last) return null;
      await this.engine.storeMark(pair.code, second, null, null, last, now);
      return last;
    }
    const sample = mid !== null ? mid - index : 0n;
    const kept = (await this.redis.lrange(this.keys.ofPair(pair.code).basisSamples(pair.code), 0, BASIS_SAMPLES - 1)).map((s) => BigInt(s));
    // this second's sample joins the average unless this second was sampled already
    const basis = Number(stored[0] ?? -1) < second ? [sample, ...kept].slice(0, BASIS_SAMPLES) : kept;
    const { finish } = this.fundingRound(now);
    const mark = markTicks({
      index,
      lastRatePpm: rate,
      msToNextFunding: finish - now,
      intervalMs: this.settings.fundingIntervalSeconds * 1000,
      basis,
      lastTrade: last ? BigInt(last) : null,
      bandPpm: markBandPpm(pair.maxLeverage ?? 1, ppm(pair.maintenanceMarginRate)),
    }).toString();
    const ok = await this.engine.storeMark(pair.code, second, index.toString(), sample.toString(), mark, now);
    if (!ok) return (await this.redis.hget(this.keys.ofPair(pair.code).markPrice(pair.code), 'p')) ?? mark;
    return mark;
  }

  /** The stored mark (refreshed each second by the mark worker); computed and stored when none is. */
  async markTicks(pair: Pair): Promise<string | null> {
    const stored = await this.redis.hget(this.keys.ofPair(pair.code).markPrice(pair.code), 'p');
    return stored ?? this.refreshMark(pair);
  }

  /** Rate of the last settled round, ppm (0 before any). */
  async lastFundingRatePpm(pair: Pair): Promise<number> {
    return Number((await this.redis.hget(this.keys.ofPair(pair.code).fundingState(pair.code), 'rate')) ?? 0);
  }

  /** The premium sample slot last recorded, or null. */
  premiumSlot(pair: Pair): Promise<string | null> {
    return this.redis.hget(this.keys.ofPair(pair.code).fundingState(pair.code), 'pslot');
  }

  /** Cap of the pair's funding rate: ±0.75 × its maintenance margin rate. */
  fundingCapPpm(pair: Pair): number {
    return fundingCapPpm(ppm(pair.maintenanceMarginRate));
  }

  /**
   * Rate the round in progress would settle at now, ppm of notional, from its premium samples so far
   * (the same arithmetic the settlement script runs). Positive: longs pay shorts.
   */
  async fundingRatePpm(pair: Pair): Promise<number> {
    const [n, w] = await this.redis.hmget(this.keys.ofPair(pair.code).fundingState(pair.code), 'pn', 'pw');
    return fundingRatePpm(Number(w ?? 0), Number(n ?? 0), this.fundingCapPpm(pair), FUNDING_INTEREST_PPM);
  }

  /** The funding round `at` falls in: rounds are numbered from the epoch, one per interval. */
  fundingRound(at: number): { round: number; start: number; finish: number } {
    const len = this.settings.fundingIntervalSeconds * 1000;
    const round = Math.floor(at / len);
    return { round, start: round * len, finish: (round + 1) * len };
  }
}
