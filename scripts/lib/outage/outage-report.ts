import type { DepositSample } from './deposit-load';

/** When Redis went away and when it was back (ms since the epoch). */
export interface OutageWindow {
  down: number;
  up: number;
}

export interface OutageReport {
  requests: number;
  /** Requests sent while Redis was away. */
  inWindow: number;
  inWindowOk: number;
  inWindow503: number;
  /** Longest time a request sent while Redis was away waited for its answer (ms). */
  maxLatencyInWindowMs: number;
  /** Requests sent while Redis was away and answered after more than `limitMs`, or never. */
  slowInWindow: number;
  /** Answers other than 200 and 503 ENGINE_UNAVAILABLE with Retry-After (0 = no answer). */
  unexpected: { status: number; code?: string; count: number }[];
  /** Answered 200 and not applied. */
  lostWrites: number;
  /** Answered otherwise than 200 (or not at all), sent after Redis went away, and applied anyway. */
  executedAfterAnswer: number;
  /** In flight when Redis went away, answered 503, applied: the reply is what was lost. */
  inFlightAppliedDespite503: number;
  /** Answered 200 after Redis was back. */
  okAfterRecovery: number;
  /** From Redis back to the first request that succeeded (ms). */
  recoveryMs: number;
  /** Answers other than 200 outside the outage: before it, or after the first success once Redis was back. */
  failuresOutside: number;
}

/** Classifies every deposit by when it was sent, what it was answered, and whether it ran. */
export function outageReport(
  samples: DepositSample[],
  credited: Set<string>,
  window: OutageWindow,
  limitMs: number,
): OutageReport {
  const sentDuring = samples.filter((s) => s.start >= window.down && s.start < window.up);
  const unexpected = new Map<string, { status: number; code?: string; count: number }>();
  for (const s of samples) {
    const fine = s.status === 200 || (s.status === 503 && s.code === 'ENGINE_UNAVAILABLE' && Number(s.retryAfter) >= 1);
    if (fine) continue;
    const key = `${s.status}/${s.code}`;
    const u = unexpected.get(key) ?? { status: s.status, code: s.code, count: 0 };
    u.count++;
    unexpected.set(key, u);
  }
  const inFlightAtDown = (s: DepositSample) => s.start < window.down && s.end >= window.down;
  const okAfter = samples.filter((s) => s.status === 200 && s.start >= window.up);
  const recovered = okAfter.length ? Math.min(...okAfter.map((s) => s.end)) : Infinity;
  return {
    requests: samples.length,
    inWindow: sentDuring.length,
    inWindowOk: sentDuring.filter((s) => s.status === 200).length,
    inWindow503: sentDuring.filter((s) => s.status === 503).length,
    maxLatencyInWindowMs: Math.max(0, ...sentDuring.map((s) => s.end - s.start)),
    slowInWindow: sentDuring.filter((s) => s.status === 0 || s.end - s.start > limitMs).length,
    unexpected: [...unexpected.values()],
    lostWrites: samples.filter((s) => s.status === 200 && !credited.has(s.user)).length,
    executedAfterAnswer: samples.filter((s) => s.status !== 200 && credited.has(s.user) && !inFlightAtDown(s)).length,
    inFlightAppliedDespite503: samples.filter((s) => s.status === 503 && credited.has(s.user) && inFlightAtDown(s)).length,
    okAfterRecovery: okAfter.length,
    recoveryMs: recovered - window.up,
    failuresOutside: samples.filter((s) => s.status !== 200 && (s.end < window.down || s.start > recovered)).length,
  };
}
