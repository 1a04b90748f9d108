/**
 * Index, mark and funding-rate arithmetic of futures markets (docs/futures.md, Binance USDⓈ-M scheme;
 * docs/futures.md has a worked example of each). Prices are integer ticks (bigint); rates are
 * integer parts per million (ppm) and premium samples integer parts per billion (ppb).
 */

/** Interest part of the funding rate per interval: 0.01 %. */
export const FUNDING_INTEREST_PPM = 100;
/** The clamp of (interest − mean premium): ±0.05 %. */
export const FUNDING_CLAMP_PPM = 500;
/** A premium sample beyond ±10 % is cut there (keeps Σ k·P below 2^53 over any interval). */
export const PREMIUM_LIMIT_PPB = 100_000_000;
/** Samples of (mid − index) the mark's second part averages (one a second). */
export const BASIS_SAMPLES = 30;
/** How far the own spot market's impact mid may sit from the outside sources' median: ±0.5 %, ppm. */
export const SPOT_INDEX_BAND_PPM = 5_000;

export interface IndexSource {
  name: string;
  ticks: bigint;
  /** When the source last reported, ms. */
  at: number;
}

/** Median of integer prices; the lower middle rounded down toward the mean of the two middles. */
export function medianTicks(values: bigint[]): bigint | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const m = s.length >> 1;
  if (s.length % 2 === 1) return s[m];
  return (s[m - 1] + s[m]) / 2n;
}

/** The sources that count: those not older than `staleMs`; none when all are stale (the last index stands). */
export function freshSources(sources: IndexSource[], now: number, staleMs: number): IndexSource[] {
  return sources.filter((s) => now - s.at <= staleMs);
}

/** v held within center ± center × ppm / 10⁶, the bounds rounded toward the center (center > 0). */
export function clampToBand(v: bigint, center: bigint, ppm: number): bigint {
  const reach = (center * BigInt(ppm)) / 1_000_000n;
  if (v < center - reach) return center - reach;
  if (v > center + reach) return center + reach;
  return v;
}

/**
 * Index from the fresh outside sources (operators, oracles) and the own spot market's impact mid
 * (null when its book cannot fill the impact notional on both sides): the median of the outside
 * prices and the spot impact mid held within SPOT_INDEX_BAND_PPM of their median. The spot market
 * is a weak source: it never counts alone, so with no outside source fresh this is null and the
 * last index stands.
 */
export function indexFromSources(outside: bigint[], spotImpactMid: bigint | null): bigint | null {
  const median = medianTicks(outside);
  if (median === null || spotImpactMid === null) return median;
  return medianTicks([...outside, clampToBand(spotImpactMid, median, SPOT_INDEX_BAND_PPM)]);
}

/**
 * Band of the mark's book-driven parts (the basis average and the last trade) around the index, ppm:
 * half the room between initial and maintenance margin at max leverage, (1/maxLeverage − mmr) / 2
 * (BTC_USDT, 100x and 0.5 %: 0.25 %). Whatever the futures book and its trades do, the mark then
 * stays that close to the index, so they cannot liquidate a position opened at the index even at
 * max leverage (docs/futures.md has the reasoning and a worked example).
 */
export function markBandPpm(maxLeverage: number, mmrPpm: number): number {
  return Math.max(0, Math.floor((1_000_000 / maxLeverage - mmrPpm) / 2));
}

/** Cap of the funding rate per interval: 0.75 × the pair's maintenance margin rate (ppm, rounded down). */
export function fundingCapPpm(mmrPpm: number): number {
  return Math.floor((mmrPpm * 3) / 4);
}

/**
 * Premium index sample P = [max(0, impactBid − I) − max(0, I − impactAsk)] / I in ppb, cut at ±10 %.
 * A side whose book cannot fill the impact notional counts as absent (its term is 0).
 */
export function premiumPpb(index: number, impactBid: number | null, impactAsk: number | null): number {
  if (!(index > 0)) return 0;
  const up = impactBid !== null ? Math.max(0, impactBid - index) : 0;
  const down = impactAsk !== null ? Math.max(0, index - impactAsk) : 0;
  const p = Math.round(((up - down) / index) * 1e9);
  return Math.max(-PREMIUM_LIMIT_PPB, Math.min(PREMIUM_LIMIT_PPB, p));
}

/**
 * Funding rate of a round, ppm: P̄ + clamp(interest − P̄, ±0.05 %), capped at ±cap, where
 * P̄ = Σ k·P_k / Σ k over the n samples of the interval (k = 1..n, ppb; the later weigh more).
 * lua/futures/settleFuturesFunding-23.lua computes the same, with the same floating operations.
 */
export function fundingRatePpm(weightedSumPpb: number, n: number, capPpm: number, interestPpm = FUNDING_INTEREST_PPM): number {
  const mean = n > 0 ? weightedSumPpb / ((n * (n + 1)) / 2) : 0;
  const interest = interestPpm * 1000;
  const clampPpb = FUNDING_CLAMP_PPM * 1000;
  const f = mean + Math.max(-clampPpb, Math.min(clampPpb, interest - mean));
  const ppm = f >= 0 ? Math.floor(f / 1000 + 0.5) : -Math.floor(-f / 1000 + 0.5);
  return Math.max(-capPpm, Math.min(capPpm, ppm));
}

/** a × b / c rounded half up, for non-negative bigints. */
function mulDivRound(a: bigint, b: bigint, c: bigint): bigint {
  return (a * b * 2n + c) / (2n * c);
}

export interface MarkInputs {
  index: bigint;
  /** Rate of the last settled round, ppm (0 before any). */
  lastRatePpm: number;
  msToNextFunding: number;
  intervalMs: number;
  /** Samples of (futures mid − index), ticks, at most BASIS_SAMPLES. */
  basis: bigint[];
  /** Last futures trade, ticks, or null before any. */
  lastTrade: bigint | null;
  /** Band of P2 and the last trade around the index, ppm (markBandPpm). */
  bandPpm: number;
}

/**
 * The mark's three parts: P1 (index carried by the funding rate), P2 (index + basis average) and
 * the last trade, the two that come from the futures book held within bandPpm of the index.
 */
export function markParts(m: MarkInputs): { p1: bigint; p2: bigint; last: bigint | null } {
  const scale = BigInt(m.intervalMs) * 1_000_000n;
  const num = scale + BigInt(m.lastRatePpm) * BigInt(Math.max(0, m.msToNextFunding));
  const p1 = num > 0n ? mulDivRound(m.index, num, scale) : 0n;
  let sum = 0n;
  for (const b of m.basis) sum += b;
  const n = BigInt(m.basis.length);
  // the average rounded half away from zero
  const avg = n === 0n ? 0n : sum >= 0n ? (sum * 2n + n) / (2n * n) : -((-sum * 2n + n) / (2n * n));
  const held = (v: bigint) => clampToBand(v, m.index, m.bandPpm);
  return { p1, p2: held(m.index + avg), last: m.lastTrade === null ? null : held(m.lastTrade) };
}

/** Mark = median(P1, P2, last trade); without a trade yet, the median of the other two. */
export function markTicks(m: MarkInputs): bigint {
  const { p1, p2, last } = markParts(m);
  const parts = last !== null ? [p1, p2, last] : [p1, p2];
  return medianTicks(parts.filter((p) => p > 0n)) ?? m.index;
}

/**
 * Average fill price of `notional` (quote units) walked through one side of the book, best level
 * first (`levels`: [price, quantity] in units, not ticks); null when the side cannot fill it.
 */
export function impactPrice(levels: [number, number][], notional: number, contractValue: number): number | null {
  let left = notional;
  let qty = 0;
  for (const [price, quantity] of levels) {
    const levelNotional = price * quantity * contractValue;
    if (levelNotional >= left) {
      qty += left / (price * contractValue);
      return notional / (qty * contractValue);
    }
    left -= levelNotional;
    qty += quantity;
  }
  return null;
}
