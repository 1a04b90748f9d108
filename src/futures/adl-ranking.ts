import type { RedisClient } from '../platform/redis/connection';
import type { FuturesKeyring } from './futures-keyring';
import type { FuturesParams } from '../domain/futures';
import { futuresOrderOf } from './futures-order-record';

/** How long one pair's ranking stands before it is read again (Binance refreshes every 30 s). */
const REFRESH_MS = 30_000;

/**
 * The auto-deleveraging score of a position at the mark, as lua/includes/futures/adl.lua ranks it:
 * pnl % x effective leverage for a winner, pnl % / effective leverage for a loser; null when its
 * equity is gone. A double: for ranking only.
 */
export function adlScore(h: Record<string, string>, ns: number, markTicks: number): number | null {
  const lots = Number(h.openQty);
  const notional = markTicks * lots * ns;
  let upnl = notional - Number(h.cost) * ns;
  if (h.side !== 'buy') upnl = -upnl;
  const margin = Number(h.margin);
  const equity = margin + upnl;
  if (lots <= 0 || equity <= 0) return null;
  const pct = upnl / Math.max(1, margin);
  const lev = notional / equity;
  return upnl > 0 ? pct * lev : pct / lev;
}

interface SideScores { long: number[]; short: number[] }

/**
 * adlQuantile (an extension of the OpenAPI `FuturesOrder` record, docs/futures.md "ADL"): 0-4, where the position
 * stands in its pair and side's ADL queue, 4 = the top fifth (deleveraged first). The scores of a
 * pair's positions in force are read at most every 30 s; a position is placed among them by its own
 * score at the current mark; a position at a loss reads 0.
 */
export class AdlRanking {
  private readonly cache = new Map<string, { at: number; mark: number; scores: SideScores }>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: FuturesKeyring,
  ) {}

  async quantile(h: Record<string, string>, params: FuturesParams, markTicks: string | null, now = Date.now()): Promise<number> {
    if (!markTicks || h.status !== '50' || Number(h.openQty) <= 0) return 0;
    const mark = Number(markTicks);
    const score = adlScore(h, params.ns, mark);
    // a loser is deleveraged after every winner: it shows the lowest light
    if (score === null || score <= 0) return 0;
    const scores = (await this.scores(h.pair, params.ns, mark, now))[h.side === 'buy' ? 'long' : 'short'];
    if (scores.length === 0) return 0;
    // how many scores are at or below this one (sorted ascending)
    let lo = 0;
    let hi = scores.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (scores[mid] <= score) lo = mid + 1;
      else hi = mid;
    }
    return Math.max(0, Math.min(4, Math.floor((lo / scores.length) * 5 - 1e-9)));
  }

  private async scores(pair: string, ns: number, mark: number, now: number): Promise<SideScores> {
    const hit = this.cache.get(pair);
    if (hit && now - hit.at < REFRESH_MS) return hit.scores;
    const k = this.keys.ofPair(pair);
    const ids = [
      ...(await this.redis.zrange(k.futuresTrigger(pair, 'liqL'), '0', '-1')),
      ...(await this.redis.zrange(k.futuresTrigger(pair, 'liqS'), '0', '-1')),
    ];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(k.order(id));
    const scores: SideScores = { long: [], short: [] };
    for (const [, h] of (await pipeline.exec()) ?? []) {
      const row = futuresOrderOf(h as Record<string, string>);
      const s = adlScore(row, ns, mark);
      if (s !== null) scores[row.side === 'buy' ? 'long' : 'short'].push(s);
    }
    scores.long.sort((a, b) => a - b);
    scores.short.sort((a, b) => a - b);
    this.cache.set(pair, { at: now, mark, scores });
    return scores;
  }
}
