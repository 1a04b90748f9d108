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
