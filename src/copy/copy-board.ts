import type { PageRequest } from '../domain/paging';
import type { RankBy } from '../futures';
import { rankPage, rankScores, rankWithin } from '../platform/redis/ranking';
import type { CopyDeps } from './copy-deps';
import type { MasterRecord } from './copy-store';

export const SORT_PRESETS = ['roi', 'pnl', 'followers', 'aum', 'drawdown', 'tradingDays', 'newest'] as const;
export type SortPreset = (typeof SORT_PRESETS)[number];

/** Filters of the master lists (the copy master routes, docs/copy-trading.md); ranges are inclusive. */
export interface MasterFilter {
  onlyClosed?: boolean;
  roiFrom?: number;
  roiTo?: number;
  followersFrom?: number;
  followersTo?: number;
  daysFrom?: number;
  daysTo?: number;
  aumFrom?: number;
  aumTo?: number;
  drawdownFrom?: number;
  drawdownTo?: number;
  sortPreset: SortPreset;
}

/** The board backfill's version: a new one reruns it over every master (2: the listing tracks the master's account). */
const BACKFILL_VERSION = '2';

/** Where a leaderboard order lives: the futures rankings (kept by the engine) or the copy board's own. */
type Source = { futures: RankBy } | { copy: 'followers' | 'aum' | 'newest' };

const SORTS: Record<SortPreset, Source> = {
  roi: { futures: 'roi' },
  pnl: { futures: 'pnl' },
  tradingDays: { futures: 'days' },
  drawdown: { futures: 'dd' },
  followers: { copy: 'followers' },
  aum: { copy: 'aum' },
  newest: { copy: 'newest' },
};

/** Filter ranges: query names, where the value is ranked, and whether it is stored negated (higher first). */
const FILTERS: [keyof MasterFilter, keyof MasterFilter, Source, boolean][] = [
  ['roiFrom', 'roiTo', { futures: 'roi' }, true],
  ['followersFrom', 'followersTo', { copy: 'followers' }, true],
  ['daysFrom', 'daysTo', { futures: 'days' }, true],
  ['aumFrom', 'aumTo', { copy: 'aum' }, true],
  ['drawdownFrom', 'drawdownTo', { futures: 'dd' }, false],
];

/**
 * The public leaderboard of open masters (docs/copy-trading.md "Lists of masters"): one sorted set
 * per order, kept up to date by the engine as trades happen (roi, pnl, trading days, drawdown:
 * lua/includes/futures/accountRank.lua) and by the copy transitions (followers, aum, newest:
 * lua/copy/refreshCopyBoard). A page without filters is one range read; a filtered one reads the
 * masters within the first filter's range, then the other scores of those only.
 */
const sameSource = (a: Source, b: Source) =>
  'futures' in a ? 'futures' in b && a.futures === b.futures : 'copy' in b && a.copy === b.copy;

export class CopyBoard {
  constructor(private readonly d: CopyDeps) {}

  async page(f: MasterFilter, page: PageRequest): Promise<{ ids: string[]; total: number }> {
    const sort = SORTS[f.sortPreset];
    const offset = (page.page - 1) * page.pageSize;
    const ranges = FILTERS.filter(([from, to]) => f[from] !== undefined || f[to] !== undefined).map(([from, to, src, neg]) => {
      const lo = (f[from] as number | undefined) ?? -Infinity;
      const hi = (f[to] as number | undefined) ?? Infinity;
      return { src, min: neg ? -hi : lo, max: neg ? -lo : hi };
    });
    // no filter, or one on the sort's own ranking: a range of that ranking, O(log n + page)
    const [first, ...rest] = ranges;
    if (!first || (rest.length === 0 && sameSource(first.src, sort))) {
      const [min, max] = first ? [first.min, first.max] : [-Infinity, Infinity];
      return 'futures' in sort
        ? this.d.stats.page(sort.futures, offset, page.pageSize, min, max)
        : rankPage(this.d.redis, this.d.keys.copyBoard(sort.copy), offset, page.pageSize, min, max);
    }
    let ids = [...(await this.within(first.src, first.min, first.max)).keys()];
    for (const r of rest) {
      const scores = await this.scores(r.src, ids);
      ids = ids.filter((_, i) => scores[i] !== null && (scores[i] as number) >= r.min && (scores[i] as number) <= r.max);
    }
    const keys = await this.scores(sort, ids);
    const ranked = ids
      .map((id, i) => ({ id, score: keys[i] }))
      .filter((x): x is { id: string; score: number } => x.score !== null)
      .sort((a, b) => a.score - b.score || Number(a.id) - Number(b.id));
    return { ids: ranked.slice(offset, offset + page.pageSize).map((x) => x.id), total: ranked.length };
  }

  /**
   * Puts an open master on the board (its futures account ranked from its base equity) and scores
   * it. The ranking step makes the account tracked if it was not (its aggregates rebuilt from its
   * orders): a master's account is tracked from birth, so that is a master from before the flag, or
   * one whose listing a crash delayed (repair).
   */
  async list(m: MasterRecord, decimals: number): Promise<void> {
    await this.d.stats.rank(m.id, m.initial, decimals);
    await this.d.engine.refreshBoard(m.id);
  }

  /** Takes a master off the board (closing): it keeps its place by pnl among all masters (globalRank). */
  async delist(masterId: string): Promise<void> {
    await this.d.stats.unrank(masterId);
    await this.d.engine.refreshBoard(masterId);
  }

  /**
   * The daily job's look at an open master: listed if a crash came between its creation and its
   * listing, board scores re-read if one came between a transition and its refresh.
   */
  async repair(m: MasterRecord): Promise<void> {
    const [place] = await this.d.stats.places('roi', [m.id]);
    if (place === 0) await this.list(m, Number(m.dec ?? (await this.d.markets.getCurrency(m.currency))?.decimals ?? 0));
    else await this.d.engine.refreshBoard(m.id);
  }

  /**
   * Once per deployment: every master listed (its account made tracked, its aggregates rebuilt from
   * its orders) and scored on the board, closed ones taken out again (leaving their pnl place); then
   * the futures aggregates backfilled (FuturesAccountStats.backfill: every tracked account rebuilt,
   * the others' deleted), which is why the masters come first.
   */
  async backfill(): Promise<void> {
    if ((await this.d.redis.get(this.d.keys.copyBoardBackfill())) !== BACKFILL_VERSION) {
      for (const m of await this.d.store.allMasters()) {
        const decimals = (await this.d.markets.getCurrency(m.currency))?.decimals ?? 0;
        await this.d.store.setMasterDecimals(m.id, decimals);
        await this.list(m, decimals);
        if (m.status !== 'Active') await this.delist(m.id);
      }
      await this.d.redis.set(this.d.keys.copyBoardBackfill(), BACKFILL_VERSION);
    }
    await this.d.stats.backfill(this.d.log);
  }

  private async within(src: Source, min: number, max: number): Promise<Map<string, number>> {
    return 'futures' in src ? this.d.stats.within(src.futures, min, max) : rankWithin(this.d.redis, this.d.keys.copyBoard(src.copy), min, max);
  }

  private async scores(src: Source, ids: string[]): Promise<(number | null)[]> {
    return 'futures' in src ? this.d.stats.scores(src.futures, ids) : rankScores(this.d.redis, this.d.keys.copyBoard(src.copy), ids);
  }
}
