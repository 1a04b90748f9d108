import BigNumber from 'bignumber.js';
import { paged, type PagedResult, type PageRequest } from '../domain/paging';
import type { CopyDeps } from './copy-deps';
import { futuresOrderDto, type FuturesOrderDto } from '../futures';
import type { FuturesUserDealDto } from '../futures';

/** Filters of the positions-history and trades lists (the copy master routes, docs/copy-trading.md). */
export interface HistoryQuery extends PageRequest {
  sortBy: 'date' | 'pnl' | 'roi';
  sortDir: 'asc' | 'desc';
  side?: 'long' | 'short';
  roiFrom?: number;
  roiTo?: number;
  dateFrom?: Date;
  dateTo?: Date;
}

/** PositionDto and OrderDto (docs/api-contract.md#resources) are the futures record of `FuturesOrder`; TradeDto is the user deal of `FuturesUserDeal`. */
export type PositionDto = FuturesOrderDto;
export type OrderDto = FuturesOrderDto;
export type TradeDto = FuturesUserDealDto;

interface Row<T> {
  dto: T;
  ms: number;
  pnl: number;
  roi: number;
  long: boolean;
}

function filterSort<T>(rows: Row<T>[], q: HistoryQuery): PagedResult<T> {
  const from = q.dateFrom?.getTime() ?? -Infinity;
  const to = q.dateTo?.getTime() ?? Infinity;
  const kept = rows.filter(
    (r) =>
      (!q.side || r.long === (q.side === 'long')) &&
      (q.roiFrom === undefined || r.roi >= q.roiFrom) &&
      (q.roiTo === undefined || r.roi <= q.roiTo) &&
      r.ms >= from &&
      r.ms <= to,
  );
  const key = q.sortBy === 'date' ? 'ms' : q.sortBy;
  const dir = q.sortDir === 'asc' ? 1 : -1;
  kept.sort((a, b) => dir * (a[key] - b[key] || a.ms - b.ms));
  return paged(
    kept.map((r) => r.dto),
    q,
  );
}

/**
 * The positions, closed positions and trades of masters and slaves: the futures records of the
 * accounts given (a master's account, or the accounts of a slave's subscriptions).
 */
export class CopyHistoryService {
  constructor(private readonly d: CopyDeps) {}

  /** Open positions, newest first. */
  async positions(accountIds: string[], page: PageRequest): Promise<PagedResult<PositionDto>> {
    const all = await this.records(accountIds, ['50']);
    return paged(
      all.sort((a, b) => Date.parse(b.createTimestamp) - Date.parse(a.createTimestamp) || b.id - a.id),
      page,
    );
  }

  /** Closed positions; `date` is when the position closed, roi its totalPnlPercentage. */
  async positionsHistory(accountIds: string[], q: HistoryQuery): Promise<PagedResult<OrderDto>> {
    const all = await this.records(accountIds, ['20']);
    return filterSort(
      all.map((dto) => ({
        dto, ms: Date.parse(dto.updateTimestamp), pnl: dto.realizedPnl, roi: dto.totalPnlPercentage, long: dto.isLong,
      })),
      q,
    );
  }

  /**
   * Fills of the accounts' positions (opening and closing), from the futures streams as far back as
   * they are kept; roi of a fill = realizedPnl / (price × amount) × 100.
   */
  async trades(accountIds: string[], q: HistoryQuery): Promise<PagedResult<TradeDto>> {
    const rows: Row<TradeDto>[] = [];
    const byUser = new Map<string, Set<number>>();
    for (const id of accountIds) {
      const state = await this.d.reader.state(id);
      if (!state) continue;
      const set = byUser.get(state.user) ?? new Set<number>();
      for (const o of state.orders) set.add(Number(o.h.id));
      byUser.set(state.user, set);
    }
    for (const [user, positions] of byUser) {
      const deals = await this.d.futures.market.userDeals(user, { Page: 1, PageSize: Number.MAX_SAFE_INTEGER });
      for (const dto of deals.items) {
        if (!positions.has(dto.orderId)) continue;
        const notional = new BigNumber(dto.price).times(dto.amount);
        const roi = notional.gt(0) ? new BigNumber(dto.realizedPnl).div(notional).times(100).toNumber() : 0;
        rows.push({ dto, ms: Date.parse(dto.timestamp), pnl: dto.realizedPnl, roi, long: dto.isLong });
      }
    }
    return filterSort(rows, q);
  }

  private async records(accountIds: string[], statuses: string[]): Promise<FuturesOrderDto[]> {
    const out: FuturesOrderDto[] = [];
    for (const id of accountIds) {
      const state = await this.d.reader.state(id);
      for (const o of state?.orders ?? []) {
        if (statuses.includes(o.h.status)) out.push(futuresOrderDto(o.h, o.pair, o.params, o.mark));
      }
    }
    return out;
  }
}
