/**
 * The list envelope of docs/contract.md §5, made here from what a service listed and the request:
 * services answer rows and a total (src/domain/pagination.ts), and only HTTP knows the URL the
 * next and previous links keep the query of.
 */
import { pageRequest, type Listing, type PageRequest } from "../domain/pagination";

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

/** Wraps one page of rows; `url` is the request URL, whose other query parameters the links keep. */
export function pageOf<T>(listing: Listing<T>, request: PageRequest, url: string): Page<T> {
  const { rows: data, total } = listing;
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

/**
 * A list route's answer: the page the query asks for (`page`, `per_page`), read by `list`, in the
 * envelope whose links keep the request's query.
 *
 * @example
 * .get("", ({ merchant, query, request }) => listPage(query, request, (page) => invoices.list(merchant.id, {}, page)))
 */
export async function listPage<T>(
  query: { page?: number | string; per_page?: number | string },
  request: Request,
  list: (page: PageRequest) => Promise<Listing<T>>,
): Promise<Page<T>> {
  const page = pageRequest(query);
  return pageOf(await list(page), page, request.url);
}
