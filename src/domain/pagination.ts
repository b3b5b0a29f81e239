/**
 * Paging as the services see it: which rows a list call wants (PageRequest, from `page` and
 * `per_page`) and what it answers (Listing: those rows and how many there are in all). The page
 * envelope with its links is made from the request by src/http/page.ts.
 */

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 200;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** One page of a list: its rows, and the number of rows of the whole list. */
export interface Listing<T> {
  rows: T[];
  total: number;
}

export function pageRequest(query: { page?: number | string; per_page?: number | string }): PageRequest {
  const page = Math.max(1, Math.floor(Number(query.page ?? 1)) || 1);
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(query.per_page ?? DEFAULT_PER_PAGE)) || 1));
  return { page, perPage, offset: (page - 1) * perPage };
}
