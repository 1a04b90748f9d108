import BigNumber from 'bignumber.js';
import { decimal, shiftDecimal } from '../domain/decimal';
import type { Pair } from '../domain/market';
import type { MarketKind } from '../platform/redis/keys';
import { ReadGate } from './read-gate';
import type { HistoryTrade, TradeHistory } from './trade-history';

/** A trade in pair units, decimals as plain-notation strings (exact; no float on the way). */
export interface TradeRecord {
  id: number;
  /** ms since the epoch: the engine command's timestamp */
  ts: number;
  price: string;
  /** base quantity (futures: lots × contractValue) */
  amount: string;
  /** price × amount, exact */
  quote: string;
  /** the taker's side */
  side: 'buy' | 'sell';
}

export interface TradePageQuery {
  from?: number;
  to?: number;
  side?: 'buy' | 'sell';
  /** trades wanted, at most MAX_TRADE_PAGE */
  limit: number;
  /** only trades with a smaller id: the cursor of the next page */
  beforeId?: number;
}

export interface TradePage {
  trades: { pair: Pair; t: TradeRecord }[];
  /** the `beforeId` that reads on, null when nothing older is kept */
  nextBeforeId: number | null;
}

/** The most trades one page holds, and the most records one request reads to fill it (a side filter skips some). */
export const MAX_TRADE_PAGE = 10_000;
const SCAN_BUDGET = 20_000;
const CHUNK = 1_000;
/** Pages one process converts at once (ReadGate): feed readers queue rather than crowd out trading. */
const PAGES_AT_ONCE = 1;
const YIELD_EVERY = 200;

/** Pages convert thousands of trades: integer arithmetic on strings and BigInt, BigNumber only for a futures contract value. */
export function tradeRecord(pair: Pair, t: HistoryTrade): TradeRecord {
  const price = shiftDecimal(t.p, pair.digitsPrice);
  const cv = pair.contractValue ?? 1;
  if (cv === 1) {
    const amount = shiftDecimal(t.q, pair.digitsAmount);
    const quote = shiftDecimal((BigInt(t.p) * BigInt(t.q)).toString(), pair.digitsPrice + pair.digitsAmount);
    return { id: t.id, ts: t.ts, price, amount, quote, side: t.side };
  }
  const amount = new BigNumber(t.q).shiftedBy(-pair.digitsAmount).times(decimal(cv));
  return { id: t.id, ts: t.ts, price, amount: amount.toFixed(), quote: amount.times(price).toFixed(), side: t.side };
}

/**
 * Pages of trades of one or more markets, newest first (by trade id, which is time order), from the
 * trade history. A page reads at most SCAN_BUDGET records; `nextBeforeId` says where the next starts.
 */
export class TradeReader {
  private readonly gate = new ReadGate(PAGES_AT_ONCE);

  constructor(private readonly history: TradeHistory) {}

  page(kind: MarketKind, pairs: Pair[], q: TradePageQuery): Promise<TradePage> {
    return this.gate.run(() => this.read(kind, pairs, q));
  }

  private async read(kind: MarketKind, pairs: Pair[], q: TradePageQuery): Promise<TradePage> {
    const limit = Math.min(q.limit, MAX_TRADE_PAGE);
    const sources = await Promise.all(
      pairs.map(async (p) => {
        const range = await this.history.idRange(kind, p.code, q.from, q.to);
        if (q.beforeId !== undefined) range.max = Math.min(range.max, q.beforeId - 1);
        return this.history.marketSource(kind, p.code, range);
      }),
    );
    const out: TradePage['trades'] = [];
    let scanned = 0;
    let lastId: number | null = null;
    while (out.length < limit && scanned < SCAN_BUDGET) {
      const want = q.side ? CHUNK : Math.min(CHUNK, limit - out.length);
      const chunk = await this.history.tradesFrom(sources, 0, want);
      if (chunk.length === 0) return { trades: out, nextBeforeId: null };
      for (const { trade, source } of chunk) {
        lastId = trade.id;
        // let waiting requests (order placement) run between slices of a long page
        if (++scanned % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
        if (q.side && trade.side !== q.side) continue;
        out.push({ pair: pairs[source], t: tradeRecord(pairs[source], trade) });
        if (out.length >= limit) break;
      }
      // every id above the last one read is behind us, in every market
      for (const s of sources) s.range.max = Math.min(s.range.max, (lastId ?? 0) - 1);
    }
    const more = lastId !== null && (await this.history.count(sources)) > 0;
    return { trades: out, nextBeforeId: more ? lastId : null };
  }
}
