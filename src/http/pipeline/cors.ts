/**
 * Step 2 of the request pipeline (docs/security.md): CORS for the public routes any origin may call
 * from a browser (`/webpayment/…`, `/payjs…`; payjs runs on integrators' pages). Other routes get
 * no CORS headers, so a browser keeps other origins out of them.
 *
 * Written here rather than with @elysiajs/cors: that plugin answers every path alike, and the
 * sandbox must open these prefixes only; the whole rule is a prefix test and a header set.
 *
 * @example
 * new Elysia().use(cors()).post("/webpayment/:token/tokenize", () => ({})); // OPTIONS → 204 + headers
 */
import { Elysia } from "elysia";
import { pathOf } from "./url";

/** Public routes any origin may call from a browser. */
export const CORS_PREFIXES = ["/webpayment/", "/payjs"];

export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, idempotency-key, accept",
  "access-control-max-age": "600",
  "access-control-expose-headers": "idempotent-replayed, retry-after, x-request-id",
};

/** The plugin: CORS headers on every answer under the public prefixes; a preflight answered at once. */
export function cors() {
  return new Elysia({ name: "cors" }).onRequest(({ request, set }) => {
    const path = pathOf(request.url);
    if (!CORS_PREFIXES.some((prefix) => path.startsWith(prefix))) return;
    Object.assign(set.headers, CORS_HEADERS);
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
  });
}
