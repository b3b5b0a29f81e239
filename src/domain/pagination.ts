/** The list envelope of docs/contract.md §5. */
export interface Page<T> {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
  data: T[];
  next_page_url: string | null;
  prev_page_url: string | null;
}

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 200;

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

export function pageRequest(query: { page?: number | string; per_page?: number | string }): PageRequest {
  const page = Math.max(1, Math.floor(Number(query.page ?? 1)) || 1);
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(Number(query.per_page ?? DEFAULT_PER_PAGE)) || 1));
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Wraps one page of rows; `url` is the request URL, whose other query parameters the links keep. */
export function paginate<T>(data: T[], total: number, request: PageRequest, url: string): Page<T> {
  const lastPage = Math.max(1, Math.ceil(total / request.perPage));
  const link = (page: number) => {
    const next = new URL(url);
    next.searchParams.set("page", String(page));
    next.searchParams.set("per_page", String(request.perPage));
    return next.toString();
  };
  return {
    current_page: request.page,
    per_page: request.perPage,
    total,
    last_page: lastPage,
    from: data.length ? request.offset + 1 : null,
    to: data.length ? request.offset + data.length : null,
    data,
    next_page_url: request.page < lastPage ? link(request.page + 1) : null,
    prev_page_url: request.page > 1 ? link(Math.min(request.page - 1, lastPage)) : null,
  };
}
