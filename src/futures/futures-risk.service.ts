import type { Logger } from '../platform/config/logger';
import type { FuturesEngine } from './futures-engine';
import type { MarketStore } from '../markets';
import type { FuturesPriceService } from './prices/futures-price.service';
import type { FuturesPriceEngine, FundingSettlement } from './prices/futures-price-engine';
import type { FuturesPremiumSampler } from './prices/futures-premium-sampler';
import { FUNDING_INTEREST_PPM } from '../domain/futures-prices';

/** Most sweep rounds per call: a TP/SL close moves the last price, which can trigger more. */
const MAX_ROUNDS = 20;

/**
 * The futures risk loop, callable directly (tests, workers): TP/SL and liquidation at the mark
 * price, the mark and premium ticks, funding rounds. Each step is one Lua script; calling twice is harmless.
 */
export class FuturesRiskService {
  constructor(
    private readonly engine: FuturesEngine,
    private readonly markets: MarketStore,
    private readonly prices: FuturesPriceService,
    private readonly priceEngine: FuturesPriceEngine,
    private readonly premium: FuturesPremiumSampler,
    private readonly log: Logger,
  ) {}

  /** Closes every position whose TP or SL the mark crossed; returns the ids closed. */
  async sweepTriggers(pairCode: string, now = Date.now()): Promise<{ id: string; reason: string }[]> {
    return (await this.sweepTriggersAt(pairCode, now)).closed;
  }

  /** TP/SL rounds, the mark refreshed after each (a close moves the last price); returns the mark last used. */
  private async sweepTriggersAt(pairCode: string, now: number): Promise<{ closed: { id: string; reason: string }[]; mark: string | null }> {
    const pair = await this.markets.getPair('futures', pairCode);
    if (!pair) return { closed: [], mark: null };
    const closed: { id: string; reason: string }[] = [];
    let mark = await this.prices.refreshMark(pair, now);
    for (let i = 0; mark && i < MAX_ROUNDS; i++) {
      const round = await this.engine.sweepTriggers(pairCode, mark, now);
      if (round.length === 0) break;
      closed.push(...round);
      mark = await this.prices.refreshMark(pair, now);
    }
    return { closed, mark };
  }

  /**
   * Liquidates every position whose liquidation price the mark crossed, and has the insurance fund
   * unwind what it took over (the same script, lua/futures/liquidateFuturesPositions-22); returns the
   * ids. Afterwards no open position is at or below maintenance at that mark.
   */
  async sweepLiquidations(pairCode: string, now = Date.now(), batch = 1000, at?: string): Promise<string[]> {
    const pair = await this.markets.getPair('futures', pairCode);
    if (!pair) return [];
    const mark = at ?? (await this.prices.refreshMark(pair, now));
    if (!mark) return [];
    const out: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const ids = await this.engine.liquidate(pairCode, mark, now, batch);
      out.push(...ids);
      if (ids.length < batch) break;
    }
    if (out.length) this.log.info({ pair: pairCode, count: out.length }, 'positions liquidated');
    return out;
  }

  /**
   * Both sweeps, as the workers run them after each market event: TP/SL first, then liquidation at
   * the same mark the triggers last saw (a mark that moves in between is the next sweep's).
   */
  async sweep(pairCode: string, now = Date.now()): Promise<void> {
    const { mark } = await this.sweepTriggersAt(pairCode, now);
    if (mark) await this.sweepLiquidations(pairCode, now, 1000, mark);
  }

  /**
   * The per-second tick of one market: the mark is refreshed (with its basis sample), a premium
   * sample is taken (once per sample slot), and the positions are swept at the new mark.
   */
  async tick(pairCode: string, now = Date.now()): Promise<void> {
    const pair = await this.markets.getPair('futures', pairCode);
    if (!pair) return;
    await this.prices.refreshMark(pair, now);
    await this.premium.sample(pair, now);
    await this.sweep(pairCode, now);
  }

  /**
   * Settles the funding round `now` falls in, once, at the rate its premium samples give, then runs
   * the sweeps (TP/SL, then liquidation) at once, so a payer that funding brought to maintenance is liquidated in
   * the same job. Null when it was settled already or no mark exists. `roundAt` names the round (the
   * scheduler passes a moment a little ahead, so an early tick still settles the round at the
   * boundary); the mark is refreshed at `now`, so it is never stored for a second still to come.
   */
  async settleFundingRound(pairCode: string, now = Date.now(), roundAt = now): Promise<FundingSettlement | null> {
    const pair = await this.markets.getPair('futures', pairCode);
    if (!pair) return null;
    const mark = await this.prices.refreshMark(pair, now);
    if (!mark) return null;
    const { round } = this.prices.fundingRound(roundAt);
    const r = await this.priceEngine.settleFunding(pairCode, mark, FUNDING_INTEREST_PPM, round, now);
    if (!r.settled) return null;
    this.log.info({ pair: pairCode, round, ...r }, 'funding settled');
    await this.sweep(pairCode, now); // TP/SL first, as after any event, then liquidations
    return r;
  }

  /** settleFundingRound, as a yes/no: false when it was settled already or no mark exists. */
  async runFundingRound(pairCode: string, now = Date.now(), roundAt = now): Promise<boolean> {
    return (await this.settleFundingRound(pairCode, now, roundAt)) !== null;
  }
}
