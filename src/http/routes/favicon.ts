import { Elysia } from "elysia";
import { sha256Hex } from "../../lib/crypto";
import { FAVICON_ICO } from "../favicon";

const ETAG = `"${sha256Hex(Buffer.from(FAVICON_ICO).toString("base64")).slice(0, 16)}"`;

/** GET /favicon.ico: what every browser asks for first; cacheable for a day, revalidated by ETag. */
export function faviconRoutes() {
  return new Elysia({ name: "favicon" }).get(
    "/favicon.ico",
    ({ headers }) =>
      headers["if-none-match"] === ETAG
        ? new Response(null, { status: 304, headers: { etag: ETAG, "cache-control": "public, max-age=86400" } })
        : new Response(FAVICON_ICO, {
            headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400", etag: ETAG },
          }),
    { detail: { hide: true } },
  );
}
