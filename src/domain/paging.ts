/** The paged-list wrapper (`Paged…` in the OpenAPI document). */
export interface PagedResult<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  totalPages: number;
}

export interface PageRequest {
  page: number;
  pageSize: number;
}

export function paged<T>(all: T[], req: PageRequest): PagedResult<T> {
  const start = (req.page - 1) * req.pageSize;
  return pageOf(all.slice(start, start + req.pageSize), all.length, req);
}

export function pageOf<T>(items: T[], totalCount: number, req: PageRequest): PagedResult<T> {
  return {
    items,
    page: req.page,
    pageSize: req.pageSize,
    totalCount,
    totalPages: Math.ceil(totalCount / req.pageSize),
  };
}

/**
 * The first `n` items of the merge of `lists`, each already in the order the merge keeps (a
 * shard's index read newest first): at every step the head `before` puts first (ties to the
 * earlier list). It takes at most `n` items of any list, so each list's first `n` give exactly the
 * merge's first `n`: page p of a merged list needs p × pageSize items of each list, not all of them,
 * and one item is on exactly one page.
 */
export function mergeFirst<T>(lists: T[][], before: (a: T, b: T) => boolean, n: number): T[] {
  const at = lists.map(() => 0);
  const out: T[] = [];
  while (out.length < n) {
    let pick = -1;
    for (let i = 0; i < lists.length; i++) {
      if (at[i] < lists[i].length && (pick < 0 || before(lists[i][at[i]], lists[pick][at[pick]]))) pick = i;
    }
    if (pick < 0) break;
    out.push(lists[pick][at[pick]++]);
  }
  return out;
}
