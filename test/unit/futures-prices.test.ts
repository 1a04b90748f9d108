import {
  BASIS_SAMPLES, clampToBand, indexFromSources, markBandPpm, markParts, markTicks, SPOT_INDEX_BAND_PPM,
} from '../../src/domain/futures-prices';

/** The index and mark rules of issue 24 finding 1 (docs/futures.md "Index, mark and funding"). */
describe('clampToBand', () => {
  it('holds a value within center ± ppm, the bounds rounded toward the center', () => {
    // 0.5 % of 1001 is 5.005: the band is 996..1006, never wider
    expect([clampToBand(800n, 1001n, 5000), clampToBand(1200n, 1001n, 5000), clampToBand(1003n, 1001n, 5000)])
      .toEqual([996n, 1006n, 1003n]);
    expect(clampToBand(5n, 1000n, 0)).toBe(1000n);
  });
});

describe('indexFromSources', () => {
  it('needs an outside source: the spot impact mid alone is no index', () => {
    expect(indexFromSources([], 800n)).toBeNull();
    expect(indexFromSources([], null)).toBeNull();
  });

  it('holds the spot impact mid within 0.5 % of the outside median before it joins the median', () => {
    expect(SPOT_INDEX_BAND_PPM).toBe(5000);
    expect(indexFromSources([1000n], null)).toBe(1000n);
    expect(indexFromSources([1000n], 800n)).toBe(997n); // median(1000, 995), rounded down
    expect(indexFromSources([1000n], 1003n)).toBe(1001n); // inside the band: as it is
    // outside (995, 1005) median 1000: spot 1200 held at 1005 -> median(995, 1005, 1005)
    expect(indexFromSources([995n, 1005n], 1200n)).toBe(1005n);
  });

  it('moves the index at most 0.5 % from the outside median whatever the spot mid', () => {
    const outsides: bigint[][] = [[1000n], [990n, 1010n], [900n, 1000n, 1100n], [1000n, 1000n, 1040n, 1200n]];
    for (const outside of outsides) {
      const sorted = [...outside].sort((a, b) => Number(a - b));
      const m = sorted.length % 2 ? sorted[sorted.length >> 1] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2n;
      for (const spot of [0n, 500n, m - 6n, m, m + 6n, 5000n]) {
        const index = indexFromSources(outside, spot) as bigint;
        const off = index > m ? index - m : m - index;
        expect([outside.join(','), String(spot), off * 1000n <= m * 5n]).toEqual([outside.join(','), String(spot), true]);
      }
    }
  });
});

describe('markBandPpm', () => {
  it('is half the room between initial margin at max leverage and maintenance', () => {
    expect(markBandPpm(100, 5000)).toBe(2500); // BTC_USDT: (1 % - 0.5 %) / 2
    expect(markBandPpm(50, 10000)).toBe(5000); // ETH_USDT: (2 % - 1 %) / 2
  });
});

describe('markParts', () => {
  const base = { index: 1000n, lastRatePpm: 0, msToNextFunding: 0, intervalMs: 28_800_000, bandPpm: 2500 };

  it('holds the basis average and the last trade within the band of the index', () => {
    const basis = Array<bigint>(BASIS_SAMPLES).fill(-200n);
    expect(markParts({ ...base, basis, lastTrade: 800n })).toEqual({ p1: 1000n, p2: 998n, last: 998n });
    expect(markParts({ ...base, basis: [1n], lastTrade: 1001n })).toEqual({ p1: 1000n, p2: 1001n, last: 1001n });
  });

  it('leaves the attacker of one input no say: the median is the other two', () => {
    expect(markTicks({ ...base, basis: [0n], lastTrade: 800n })).toBe(1000n);
    expect(markTicks({ ...base, basis: [-200n], lastTrade: 800n })).toBe(998n); // both book inputs: the band's edge
  });
});
