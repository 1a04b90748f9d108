import type { RedisClient } from '../platform/redis/connection';
import type { MarketStore } from '../markets';
import type { MarketKind } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import { TRADE_RECORD_FIELDS } from '../platform/market-event';

/**
 * One trade as the history keeps it (lua/includes/tradeHistory.lua): engine units, decimal strings.
 * `ts` is the command's time in ms; the futures fields are '' on spot.
 */
export interface HistoryTrade {
  id: number;
  ts: number;
  p: string;
  q: string;
  /** the taker's side */
  side: 'buy' | 'sell';
  tk: string;
  mk: string;
  tu: string;
  mu: string;
  tf: string;
  mf: string;
  tpnl: string;
  mpnl: string;
  tpos: string;
  mpos: string;
  tl: string;
  ml: string;
  tt: string;
}

/** A user's side of a trade: a trade between two orders of one user is two of these. */
export interface UserHistoryTrade {
  trade: HistoryTrade;
  role: 'taker' | 'maker';
  /** the market's code */
  pair: string;
}

/** Trade ids from `min` to `max`, both included; empty when min > max. */
export interface IdRange {
  min: number;
  max: number;
}

/** One sorted set scored by trade id (a market's records or a user's index) and the ids wanted of it. */
export interface Source {
  key: string;
  range: IdRange;
}

const ALL: IdRange = { min: 0, max: Number.MAX_SAFE_INTEGER };
const DAY_MS = 24 * 3600 * 1000;

/** A record as lua/includes/tradeHistory.lua joins it, field by field (TRADE_RECORD_FIELDS); '' for a futures field on spot. */
export function parseTradeRecord(member: string): HistoryTrade {
  const f = member.split('|');
  const t: Record<string, string | number> = {};
  for (let i = 0; i < TRADE_RECORD_FIELDS.length; i++) t[TRADE_RECORD_FIELDS[i]] = f[i] ?? '';
  t.id = Number(t.id);
  t.ts = Number(t.ts);
  return t as unknown as HistoryTrade;
}

/**
 * Reads of the per-market trade history. Every read costs O(log n + page): pages are found by rank
 * (ZCOUNT then ZREVRANGE), time bounds become id bounds through the time index, and a page merged
 * from several markets finds its first id by a binary search over counts, never by skipping.
 */
export class TradeHistory {
  /** Each market's history is on its shard (`markets`: the pair read first names it). */
  constructor(
    private readonly redis: RedisClient,
    private readonly markets: Pick<MarketStore, 'keysOf' | 'knownKeysOf' | 'allKeys'>,
    private readonly scripts: Scripts,
  ) {}

  /** Tells every shard's engine scripts how long to keep trades (they trim on write). */
  async setRetentionDays(days: number): Promise<void> {
    await Promise.all(this.markets.allKeys().map((k) => this.redis.set(k.tradeHistoryRetention(), String(Math.round(days * DAY_MS)))));
  }

  /** The ids of a market's trades made within [from, to] (ms, both optional and inclusive). */
  async idRange(kind: MarketKind, pair: string, from?: number, to?: number): Promise<IdRange> {
    const times = (await this.markets.keysOf(kind, pair)).tradeTimes(kind, pair);
    const range = { ...ALL };
    if (from !== undefined) {
      const [first] = await this.redis.zrangebyscore(times, from, '+inf', 'LIMIT', 0, 1);
      if (first === undefined) return { min: 1, max: 0 };
      range.min = Number(first);
    }
    if (to !== undefined) {
      // the first command after `to` starts with the id after the last one wanted
      const [next] = await this.redis.zrangebyscore(times, `(${to}`, '+inf', 'LIMIT', 0, 1);
      if (next !== undefined) range.max = Number(next) - 1;
    }
    return range;
  }

  marketSource(kind: MarketKind, pair: string, range: IdRange = ALL): Source {
    return { key: this.markets.knownKeysOf(kind, pair).tradeHistory(kind, pair), range };
  }

  userSource(kind: MarketKind, pair: string, userId: string, range: IdRange = ALL): Source {
    return { key: this.markets.knownKeysOf(kind, pair).userTrades(kind, pair, userId), range };
  }

  /** How many ids of the sources lie in their ranges. */
  async count(sources: Source[]): Promise<number> {
    const counts = await Promise.all(sources.map((s) => this.countFrom(s, s.range.min)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Trades of market sources newest first: `limit` of them after skipping `offset`. */
  async trades(sources: Source[], offset: number, limit: number): Promise<HistoryTrade[]> {
    return (await this.tradesFrom(sources, offset, limit)).map((t) => t.trade);
  }

  /** As trades(), each with the index of the source it came from. */
  async tradesFrom(sources: Source[], offset: number, limit: number): Promise<{ trade: HistoryTrade; source: number }[]> {
    const members = await this.membersWithKey(sources, offset, limit);
    return members.map((m) => ({ trade: parseTradeRecord(m.member), source: m.source }));
  }

  /**
   * A user's sides of trades newest first (sources from userSource), with their records: the index
   * page and its records are read together by one script (lua/market-data/readUserTrades), so a page
   * is one round trip (two more rounds per source past the first page of several markets).
   */
  async userTrades(kind: MarketKind, pairs: string[], sources: Source[], offset: number, limit: number): Promise<UserHistoryTrade[]> {
    const members = await this.page(sources, offset, limit, async (slices) => {
      const keys = slices.flatMap((c) => [c.s.key, this.markets.knownKeysOf(kind, pairs[c.source]).tradeHistory(kind, pairs[c.source])]);
      const args = slices.flatMap((c) => [idBound(c.max), c.s.range.min, c.skip, c.count]);
      const pages = await this.scripts.run<string[][]>('readUserTrades', keys, args);
      return slices.map((c, i) => {
        const flat = pages[i] ?? [];
        const out: Member[] = [];
        for (let j = 0; j < flat.length; j += 2) {
          const member = flat[j];
          out.push({ member, score: Number(member.slice(0, member.indexOf(':'))), source: c.source, record: flat[j + 1] });
        }
        return out;
      });
    });
    return members.map((m) => ({
      trade: parseTradeRecord(m.record as string),
      role: m.member.endsWith(':t') ? 'taker' : 'maker',
      pair: pairs[m.source],
    }));
  }

  /** Members of the sources newest first (by score, then member), from global position `offset`. */
  private membersWithKey(sources: Source[], offset: number, limit: number): Promise<Member[]> {
    return this.page(sources, offset, limit, (slices) => Promise.all(slices.map((c) => this.readSlice(c))));
  }

  /**
   * The page at `offset` of the sources merged: one source is read by rank from `offset`; several
   * find the page's top id by a binary search over counts, then each reads up to limit + skip
   * members at or below it (`skip`: members of the top id itself that come before `offset`, a
   * self-trade being two members of one id), and the merge drops those.
   */
  private async page(sources: Source[], offset: number, limit: number, read: (slices: Slice[]) => Promise<Member[][]>): Promise<Member[]> {
    const live = sources.filter((s) => s.range.min <= s.range.max);
    if (live.length === 0 || limit <= 0) return [];
    if (live.length === 1) {
      const [only] = await read([{ s: live[0], source: sources.indexOf(live[0]), max: live[0].range.max, skip: offset, count: limit }]);
      return only;
    }
    const top = offset === 0 ? Number.MAX_SAFE_INTEGER : await this.idAtPosition(live, offset);
    if (top < 0) return [];
    const skip = offset === 0 ? 0 : offset - (await this.countAtLeast(live, top + 1));
    const slices = live
      .map((s) => ({ s, source: sources.indexOf(s), max: Math.min(top, s.range.max), skip: 0, count: limit + skip }))
      .filter((c) => c.max >= c.s.range.min);
    const pages = slices.length ? await read(slices) : [];
    return pages
      .flat()
      .sort((a, b) => b.score - a.score || (a.member < b.member ? 1 : -1))
      .slice(skip, skip + limit);
  }

  /** One slice of a market's records: by rank past `skip` (the ids above `max` counted first). */
  private async readSlice(c: Slice): Promise<Member[]> {
    const { s } = c;
    let raw: string[];
    if (c.skip === 0) {
      raw = await this.redis.zrevrangebyscore(s.key, idBound(c.max), s.range.min, 'WITHSCORES', 'LIMIT', 0, c.count);
    } else {
      const above = c.max >= Number.MAX_SAFE_INTEGER ? 0 : await this.redis.zcount(s.key, `(${c.max}`, '+inf');
      const start = above + c.skip;
      raw = await this.redis.zrevrange(s.key, start, start + c.count - 1, 'WITHSCORES');
    }
    return pairsOf(raw)
      .filter((m) => m.score >= s.range.min)
      .map((m) => ({ ...m, source: c.source }));
  }

  /** The id at 0-based position `offset` newest first across the sources; -1 when there are fewer. */
  private async idAtPosition(sources: Source[], offset: number): Promise<number> {
    let lo = Math.min(...sources.map((s) => s.range.min));
    let hi = await this.highestId(sources);
    if ((await this.countAtLeast(sources, lo)) <= offset) return -1;
    // largest id t with at least offset + 1 ids >= t
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2);
      if ((await this.countAtLeast(sources, mid)) >= offset + 1) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private async highestId(sources: Source[]): Promise<number> {
    const tops = await Promise.all(
      sources.map(async (s) => {
        const max = Math.min(s.range.max, Number.MAX_SAFE_INTEGER);
        const raw = await this.redis.zrevrangebyscore(s.key, max, s.range.min, 'WITHSCORES', 'LIMIT', 0, 1);
        return raw.length ? Number(raw[1]) : 0;
      }),
    );
    return Math.max(...tops);
  }

  private async countAtLeast(sources: Source[], id: number): Promise<number> {
    const counts = await Promise.all(sources.map((s) => this.countFrom(s, Math.max(id, s.range.min))));
    return counts.reduce((a, b) => a + b, 0);
  }

  private countFrom(s: Source, from: number): Promise<number> {
    if (from > s.range.max) return Promise.resolve(0);
    return this.redis.zcount(s.key, from, s.range.max >= Number.MAX_SAFE_INTEGER ? '+inf' : s.range.max);
  }
}

/** A member of a source as read: a user's page carries the trade's record along. */
interface Member {
  member: string;
  score: number;
  source: number;
  record?: string;
}

/** What to read of one source: its ids at or below `max`, newest first, `count` after skipping `skip`. */
interface Slice {
  s: Source;
  source: number;
  max: number;
  skip: number;
  count: number;
}

function idBound(max: number): string | number {
  return max >= Number.MAX_SAFE_INTEGER ? '+inf' : max;
}

function pairsOf(raw: string[]): { member: string; score: number }[] {
  const out: { member: string; score: number }[] = [];
  for (let i = 0; i < raw.length; i += 2) out.push({ member: raw[i], score: Number(raw[i + 1]) });
  return out;
}
