import type { Logger } from '../platform/config/logger';
import type { FuturesEngine } from './futures-engine';
import type { MarketStore } from '../markets';
import type { FuturesPriceService } from './futures-price.service';

/** Most sweep rounds per call: a TP/SL close moves the last price, which can trigger more. */
const MAX_ROUNDS = 20;

/**
 * The futures risk loop, callable directly (tests, workers): TP/SL at the last price, liquidation
 * at the mark price, funding rounds. Each step is one Lua script; calling twice is harmless.
 */
export class FuturesRiskService {
  constructor(
    private readonly engine: FuturesEngine,
    private readonly markets: MarketStore,
    private readonly prices: FuturesPriceService,
    private readonly log: Logger,
  ) {}

  /** Closes every position whose TP or SL the last price crossed; returns the ids closed. */
  async sweepTriggers(pairCode: string, now = Date.now()): Promise<{ id: string; reason: string }[]> {
    const out: { id: string; reason: string }[] = [];
    for (let i = 0; i < MAX_ROUNDS; i++) {
      const closed = await this.engine.sweepTriggers(pairCode, now);
      if (closed.length === 0) break;
      out.push(...closed);
    }
    return out;
  }

  /** Liquidates every position whose liquidation price the mark crossed; returns the ids. */
  async sweepLiquidations(pairCode: string, now = Date.now(), batch = 1000): Promise<string[]> {
    const pair = await this.markets.getPair('futures', pairCode);
    if (!pair) return [];
    const out: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const mark = await this.prices.markTicks(pair);
      if (!mark) break;
      const ids = await this.engine.liquidate(pairCode, mark, now, batch);
      out.push(...ids);
      if (ids.length < batch) break;
    }
    if (out.length) this.log.info({ pair: pairCode, count: out.length }, 'positions liquidated');
    return out;
  }

  /** Both sweeps, as the trigger worker runs them after each market event. */
  async sweep(pairCode: string, now = Date.now()): Promise<void> {
    await this.sweepTriggers(pairCode, now);
    await this.sweepLiquidations(pairCode, now);
  }

  /** Settles the funding round `now` falls in, once; false when it was settled already or no mark exists. */
  async runFundingRound(pairCode: string, now = Date.now()): Promise<boolean> {
    const pair = await this.markets.getPair('futures', pairCode);
    if (!pair) return false;
    const mark = await this.prices.markTicks(pair);
    if (!mark) return false;
    const rate = await this.prices.fundingRatePpm(pair);
    const { round } = this.prices.fundingRound(now);
    const r = await this.engine.settleFunding(pairCode, mark, rate, round, now);
    if (r.settled) this.log.info({ pair: pairCode, round, rate, ...r }, 'funding settled');
    return r.settled;
  }
}
