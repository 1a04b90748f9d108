import type { FuturesKeyring } from '../futures-keyring';
import type { Scripts } from '../../platform/redis/scripts';
import { FuturesScriptKeys } from '../futures-script-keys';

export interface FundingSettlement {
  settled: boolean;
  positions: number;
  collected: string;
  paid: string;
  ratePpm: number;
  samples: number;
}

/**
 * Typed calls into the price and funding scripts (lua/futures/): index sources, the stored mark,
 * premium samples, funding rounds. Each is keyed (by second, sample slot or round number) so a
 * repeat or a retry after a lost reply changes nothing: plain runs, no operation record per tick.
 */
export class FuturesPriceEngine {
  private readonly scriptKeys: FuturesScriptKeys;

  constructor(
    private readonly keys: FuturesKeyring,
    private readonly scripts: Scripts,
    private readonly streamMaxLen: number,
  ) {
    this.scriptKeys = new FuturesScriptKeys(keys);
  }

  async recordIndexSource(pairCode: string, source: string, ticks: string, timestamp: number): Promise<void> {
    await this.scripts.run('setIndexPrice', [this.keys.ofPair(pairCode).indexSources(pairCode), this.keys.ofPair(pairCode).events('futures', pairCode)], [
      source, ticks, timestamp, this.streamMaxLen,
    ]);
  }

  /** Stores index and mark for `second`; adds the basis sample when that second had none. */
  async storeMark(
    pairCode: string,
    second: number,
    index: string | null,
    basis: string | null,
    mark: string,
    timestamp: number,
  ): Promise<boolean> {
    const k = this.keys.ofPair(pairCode);
    const reply = await this.scripts.run<string[]>(
      'refreshFuturesMark',
      [k.markPrice(pairCode), k.basisSamples(pairCode), k.indexPrice(pairCode), k.events('futures', pairCode)],
      [second, index ?? '', basis ?? '', mark, timestamp, this.streamMaxLen],
    );
    return reply[0] === 'OK';
  }

  /** Adds a premium sample (ppb) to the round in progress, once per slot; returns the samples so far. */
  async recordPremiumSample(pairCode: string, slot: number, premiumPpb: number): Promise<number> {
    const reply = await this.scripts.run<string[]>('recordPremiumSample', [this.keys.ofPair(pairCode).fundingState(pairCode)], [slot, premiumPpb]);
    return Number(reply[1]);
  }

  async settleFunding(
    pairCode: string,
    markTicks: string,
    interestPpm: number,
    round: number,
    timestamp: number,
  ): Promise<FundingSettlement> {
    const reply = await this.scripts.run<string[]>('settleFuturesFunding', this.scriptKeys.funding(pairCode), [
      this.keys.ofPair(pairCode).engine, pairCode, markTicks, interestPpm, round, timestamp, this.streamMaxLen,
    ]);
    if (reply[0] === 'SKIP') return { settled: false, positions: 0, collected: '0', paid: '0', ratePpm: 0, samples: 0 };
    return {
      settled: true,
      positions: Number(reply[1]),
      collected: reply[2],
      paid: reply[3],
      ratePpm: Number(reply[4]),
      samples: Number(reply[5]),
    };
  }
}
