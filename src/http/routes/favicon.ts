/**
 * GET /favicon.ico: the sandbox's icon (a blue payment card with its stripe and chip, 32×32),
 * favicon.ico beside this module, served as is. Imported as a file, so `bun build --compile`
 * embeds it in the binary; read once, on the first request.
 */
import { dirname, resolve } from "node:path";
import { Elysia } from "elysia";
import faviconImport from "./favicon.ico" with { type: "file" };

// Absolute from the sources and in the binary; in the toolkit's server bundle, relative to that bundle:
// the script Bun runs (import.meta.dir would be the build machine's folder there).
const faviconPath = resolve(dirname(Bun.main), faviconImport);

const CACHE = "public, max-age=86400";

let icon: Promise<{ bytes: Uint8Array<ArrayBuffer>; etag: string }> | undefined;
function readIcon() {
  icon ??= Bun.file(faviconPath)
    .bytes()
    .then((bytes) => ({ bytes: bytes as Uint8Array<ArrayBuffer>, etag: `"${Bun.hash(bytes).toString(36)}"` }));
  return icon;
}

/** What every browser asks for first; cacheable for a day, revalidated by ETag. */
export function faviconRoutes() {
  return new Elysia({ name: "favicon" }).get(
    "/favicon.ico",
    async ({ headers }) => {
      const { bytes, etag } = await readIcon();
      return headers["if-none-match"] === etag
        ? new Response(null, { status: 304, headers: { etag, "cache-control": CACHE } })
        : new Response(bytes, { headers: { "content-type": "image/x-icon", "cache-control": CACHE, etag } });
    },
    { detail: { hide: true } },
  );
}
