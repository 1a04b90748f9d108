import BigNumber from 'bignumber.js';
import { futuresParams } from '../domain/futures';
import type { MarketStore } from '../markets';
import type { RedisClient } from '../platform/redis/connection';
import type { Keys } from '../platform/redis/keys';
import type { Scripts } from '../platform/redis/scripts';
import type { Logger } from '../platform/config/logger';
import { rankPage, rankPlaces, rankScores, rankWithin } from '../platform/redis/ranking';
import { scanKeys } from '../platform/redis/scan-keys';
import { FuturesKeyring } from './futures-keyring';

/** The sort keys the futures rankings keep (lua/includes/futures/accountRank.lua). */
/** `all` ranks by pnl every account ever ranked, those taken out with their last score. */
export type RankBy = 'roi' | 'pnl' | 'days' | 'dd' | 'all';

/** What one pair's fills of an account add up to, minor units of the margin currency. */
export interface PairTotals {
  trades: number;
  /** realized pnl − fees − funding (no unrealized pnl) */
  net: BigNumber;
  volume: BigNumber;
}

/**
 * A futures account's trading aggregates as the Lua scripts keep them (lua/includes/futures/accountStats.lua):
 * sums over its filled opening orders, minor units; unrealized pnl is the reader's to add. Kept only
 * for tracked accounts (copy masters' and copy subscriptions'); an untracked one reads as all zeros.
 */
export interface AccountTradingStats {
  /** rpnl − fee − funding of every filled order */
  net: BigNumber;
  /** the part of `net` of orders not closed */
  openNet: BigNumber;
  /** filled orders not closed */
  openCount: number;
  funding: BigNumber;
  trades: number;
  tradingDays: number;
  /** UTC day (YYYY-MM-DD) -> net of the positions closed that day (integers: a series of many days) */
  closedDaily: Map<string, bigint>;
  pairs: Map<string, PairTotals>;
}

const DAY_MS = 86_400_000;
const isoDays = new Map<string, string>();
/** A UTC day number as YYYY-MM-DD (memoized: a page reads the same days over and over). */
function isoDay(n: string): string {
  let d = isoDays.get(n);
  if (d === undefined) {
    d = new Date(Number(n) * DAY_MS).toISOString().slice(0, 10);
    if (isoDays.size < 100_000) isoDays.set(n, d);
  }
  return d;
}
const big = (v: string | undefined) => new BigNumber(v || 0);
/** Accounts whose decoded daily series a process keeps (~25 KB each at a year of days). */
const SERIES_CACHED = 2_000;
/**
 * The backfill's version: a new one reruns it over every account (2: only tracked accounts keep
 * aggregates; 3: every account hash on every shard, not shard 0's counter, which random ids skip).
 */
const BACKFILL_VERSION = '3';
/** A key prefix as a SCAN pattern matching itself only (glob characters escaped). */
const literal = (text: string) => text.replace(/[*?[\]\\]/g, '\\$&');

/**
 * Reads, rebuilds and ranks the futures accounts' trading aggregates. The engine keeps them on the
 * market's shard, in the account's hash there (docs/futures.md, "Futures on engine shards"): reads
 * and rankings are those of `keys`, copy trading's shard, where its markets run; tracking and
 * rebuilds reach every shard the account has a hash on, its registry (the shard its id names) first.
 */
export class FuturesAccountStats {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly scripts: Scripts,
    private readonly markets: MarketStore,
    private readonly keyring: Pick<FuturesKeyring, 'all' | 'ofAccount'> = FuturesKeyring.of(keys),
  ) {}

  /**
   * The decoded daily series of recently read accounts with the version they were read at (the
   * aggregates' `dver`, raised by the engine whenever a day changes): a leaderboard page reads ten
   * series of hundreds of days each, and past days hardly ever change.
   */
  private readonly series = new Map<string, { version: string; closedDaily: Map<string, bigint> }>();

  /** Aggregates of many accounts: one round trip, a second for the series not cached at their version. */
  async read(accountIds: (string | number)[]): Promise<AccountTradingStats[]> {
    const ids = accountIds.map(String);
    const stats = await this.hashes(ids.map((id) => this.keys.futuresStats(id)));
    const versions = stats.map((h) => h.dver ?? '0');
    const series = ids.map((id, i) => {
      const cached = this.series.get(id);
      return cached?.version === versions[i] ? cached.closedDaily : undefined;
    });
    const stale = ids.flatMap((id, i) => (series[i] ? [] : [i]));
    const daily = await this.hashes(stale.map((i) => this.keys.futuresDaily(ids[i])));
    stale.forEach((i, k) => (series[i] = this.remember(ids[i], versions[i], daily[k])));
    return Promise.all(ids.map((_, i) => this.decode(stats[i], series[i] as Map<string, bigint>)));
  }

  private async hashes(keys: string[]): Promise<Record<string, string>[]> {
    if (keys.length === 0) return [];
    const p = this.redis.pipeline();
    for (const k of keys) p.hgetall(k);
    return ((await p.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return v as Record<string, string>;
    });
  }

  /** Decodes a series and keeps it; the caller uses what this returns (the cache may evict it at once). */
  private remember(id: string, version: string, daily: Record<string, string>): Map<string, bigint> {
    const closedDaily = new Map<string, bigint>();
    for (const [day, v] of Object.entries(daily)) closedDaily.set(isoDay(day), BigInt(v));
    this.series.delete(id);
    this.series.set(id, { version, closedDaily });
    // the oldest read first out (Map keeps insertion order)
    if (this.series.size > SERIES_CACHED) this.series.delete(this.series.keys().next().value as string);
    return closedDaily;
  }

  private async decode(s: Record<string, string>, closedDaily: Map<string, bigint>): Promise<AccountTradingStats> {
    const raw = new Map<string, Record<string, string>>();
    for (const [field, v] of Object.entries(s)) {
      if (!field.startsWith('p:')) continue;
      const cut = field.lastIndexOf(':');
      const code = field.slice(2, cut);
      raw.set(code, { ...raw.get(code), [field.slice(cut + 1)]: v });
    }
    const pairs = new Map<string, PairTotals>();
    for (const [code, f] of raw) {
      const pair = await this.markets.getPair('futures', code);
      if (!pair || !(Number(f.t) > 0)) continue;
      const volume = big(f.vq).times(futuresParams(pair).ns).plus(big(f.vr));
      pairs.set(code, { trades: Number(f.t), net: big(f.n), volume });
    }
    return {
      net: big(s.net),
      openNet: big(s.open),
      openCount: Number(s.on || 0),
      funding: big(s.fund),
      trades: Number(s.trades || 0),
      tradingDays: Number(s.days || 0),
      closedDaily,
      pairs,
    };
  }

  /**
   * Lists an account in the rankings with its base equity (minor units), scored at once; an account
   * not tracked yet is made tracked in the same step, its aggregates rebuilt from its orders.
   */
  async rank(accountId: string | number, baseMinor: string, decimals: number): Promise<void> {
    await this.scripts.run('rankFuturesAccount', this.rankKeys(), [this.keys.engine, String(accountId), baseMinor, decimals, Date.now()]);
  }

  async unrank(accountId: string | number): Promise<void> {
    await this.scripts.run('rankFuturesAccount', this.rankKeys(), [this.keys.engine, String(accountId), '', 0, Date.now()]);
  }

  /** A page of ranked accounts by `by`, best first (dd: lowest first), of those whose stored score is within [min, max]. */
  async page(by: RankBy, offset: number, count: number, min = -Infinity, max = Infinity): Promise<{ ids: string[]; total: number }> {
    return rankPage(this.redis, this.keys.futuresRank(by), offset, count, min, max);
  }

  /** The ranked accounts whose stored score by `by` is within [min, max] (roi, pnl, days negated). */
  async within(by: RankBy, min: number, max: number): Promise<Map<string, number>> {
    return rankWithin(this.redis, this.keys.futuresRank(by), min, max);
  }

  /** Places (1-based) of `ids` by `by` (0 for an account not ranked). */
  async places(by: RankBy, ids: string[]): Promise<number[]> {
    return rankPlaces(this.redis, this.keys.futuresRank(by), ids);
  }

  /** Stored scores of `ids` by `by` (null for an account not ranked). */
  async scores(by: RankBy, ids: string[]): Promise<(number | null)[]> {
    return rankScores(this.redis, this.keys.futuresRank(by), ids);
  }

  /**
   * Rebuilds one account's aggregates from its orders (and its ranking, if ranked) if it is tracked
   * (an account of a copy subscription is made tracked); any other account's are deleted. On every
   * shard: the registry first, then every other shard's copy, made tracked when the registry is.
   */
  async rebuild(accountId: string | number): Promise<void> {
    await this.rebuildEverywhere(String(accountId), false);
  }

  /**
   * Makes an account tracked (idempotent), its aggregates rebuilt from its orders in the same step:
   * the flag at the registry, which the copies a market's shard makes later take with them
   * (TransferLedger.openAccount), and on each shard that has a copy already.
   */
  async track(accountId: string | number): Promise<void> {
    await this.rebuildEverywhere(String(accountId), true);
  }

  private async rebuildEverywhere(id: string, track: boolean): Promise<void> {
    const registry = this.keyring.ofAccount(id);
    const tracked = await this.rebuildOn(registry, id, track);
    // a shard's copy made before the registry's flag (or from before the flag) follows the registry
    for (const keys of this.keyring.all()) if (keys !== registry) await this.rebuildOn(keys, id, tracked);
  }

  /** One shard's rebuildFuturesStats; whether the account is tracked there. */
  private async rebuildOn(keys: Keys, id: string, track: boolean): Promise<boolean> {
    const [, , tracked] = await this.scripts.run<string[]>(
      'rebuildFuturesStats',
      [keys.futuresAccountOrders(id), keys.futuresStats(id), keys.futuresDaily(id), keys.futuresDays(id)],
      [keys.engine, id, Date.now(), track ? '1' : '0'],
    );
    return tracked === '1';
  }

  /**
   * Once per deployment (a version mark): rebuilds every tracked account's aggregates from its
   * orders (rebuild: copy subscriptions' accounts made tracked, a plain trader's aggregates
   * deleted), so history placed before the aggregates existed counts. The masters' accounts must be
   * tracked before (CopyBoard.backfill lists them first). Every account hash of every shard, found
   * by SCAN: ids are random with several shards (no counter lists them), and an account's orders
   * and aggregates are on each market's shard, in its copy there. Each account's rebuild is one
   * atomic script and commands after it go on from its sum, so it is safe while trading goes on.
   */
  async backfill(log: Logger): Promise<number> {
    if ((await this.redis.get(this.keys.futuresStatsBackfill())) === BACKFILL_VERSION) return 0;
    const ids = new Set<string>();
    for (const keys of this.keyring.all()) {
      const prefix = keys.futuresAccount('');
      for await (const page of scanKeys(this.redis, `${literal(prefix)}*`)) for (const k of page.keys) ids.add(k.slice(prefix.length));
    }
    for (const id of ids) await this.rebuildEverywhere(id, false);
    await this.redis.set(this.keys.futuresStatsBackfill(), BACKFILL_VERSION);
    log.info({ accounts: ids.size }, 'futures trading aggregates backfilled');
    return ids.size;
  }

  private rankKeys(): string[] {
    const k = this.keys;
    return [k.futuresRank(), ...(['roi', 'pnl', 'days', 'dd', 'all'] as const).map((by) => k.futuresRank(by))];
  }
}
