/** Small, dependency-free statistics for benchmark samples. */

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return percentileSorted(sorted, p);
}

export function percentileSorted(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarize(xs: readonly number[]): Summary {
  const sorted = [...xs].sort((a, b) => a - b);
  return {
    n: sorted.length,
    mean: mean(sorted),
    p50: percentileSorted(sorted, 50),
    p90: percentileSorted(sorted, 90),
    p99: percentileSorted(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** Median of each numeric field over several runs' records of the same shape. */
export function medianOf<T extends Record<string, number>>(runs: readonly T[]): T {
  const out: Record<string, number> = {};
  if (runs.length === 0) return out as T;
  for (const k of Object.keys(runs[0])) out[k] = median(runs.map((r) => r[k]));
  return out as T;
}

/** Monotonic clock in milliseconds with sub-microsecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
