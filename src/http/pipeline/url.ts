/**
 * The request URL as the pipeline reads it: its path (parsed cheaply for the usual path), and the
 * refusal of a NUL character in the path or query before anything looks further.
 *
 * @example
 * pathOf("http://localhost:7290/charge?x=1"); // "/charge", without a URL parse
 * pathOf("http://localhost:7290/a/%2e%2e/_sandbox"); // "/_sandbox", as the URL standard says
 */
import { Elysia } from "elysia";
import { ApiError, ValidationFailed } from "../../domain/errors";
import { NUL_MESSAGE } from "./messages";

/**
 * The path of an absolute request URL as `new URL(href).pathname` gives it, without parsing the
 * whole URL for the usual path (letters, digits, "/", "-", "_"). Anything URL parsing could
 * rewrite (dot segments, escapes, backslashes) takes the full parse, so the sandbox-control guard
 * sees what the URL standard says.
 */
export function pathOf(href: string): string {
  const start = href.indexOf("/", href.indexOf("//") + 2);
  if (start >= 0) {
    const query = href.indexOf("?", start);
    const hash = href.indexOf("#", start);
    const end = Math.min(query < 0 ? href.length : query, hash < 0 ? href.length : hash);
    const path = href.slice(start, end);
    if (PLAIN_PATH.test(path)) return path;
  }
  return new URL(href).pathname;
}

const PLAIN_PATH = /^[A-Za-z0-9/_-]*$/;

/**
 * NUL in the path or query: no record id or route holds it, and PostgreSQL text cannot (SQLite's
 * can), so it is answered the same on both before it reaches a query: a 404 in the path, a 422
 * naming the parameter in the query.
 */
export function refuseNul(url: URL): void {
  if (!url.href.includes("%00")) return;
  if (url.pathname.includes("%00"))
    throw new ApiError("not_found", "Not found: no route or record has a path with a NUL character.");
  for (const [name, value] of url.searchParams) {
    if (name.includes("\0") || value.includes("\0"))
      throw new ValidationFailed({ [name.replaceAll("\0", "")]: [NUL_MESSAGE] });
  }
}

/** The plugin: a URL holding %00 is refused (the URL is parsed only then). */
export function urlNulCheck() {
  return new Elysia({ name: "url-nul-check" }).onRequest(({ request }) => {
    const href = request.url;
    if (href.includes("%00")) refuseNul(new URL(href));
  });
}
