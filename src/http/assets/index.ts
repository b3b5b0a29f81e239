/**
 * The browser files the sandbox serves (payjs.js, its frame page and script, payjs.d.ts, the
 * dashboard's scripts), ready to send: bytes, gzip and ETag. The compiled binary has them built
 * already (prebuilt.ts); from a checkout each is built from its sources on first use (build.ts)
 * and kept, and with --dev rebuilt when a file of its source folders changed since.
 *
 * @example
 *   const assets = browserAssets({ dev: false });
 *   const library = await assets.get("payjs.js");
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { buildBrowserFile, PROJECT_ROOT, SOURCE_DIRS, type BrowserFile } from "./build";
import { PREBUILT } from "./prebuilt";

export type { BrowserFile } from "./build";

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
  contentType: string;
}

export interface BrowserAssets {
  /** One file, built once (concurrent first requests share the build); a failed build is tried again next time. */
  get(name: BrowserFile): Promise<Asset>;
}

const CONTENT_TYPES: Record<BrowserFile, string> = {
  "payjs.js": "application/javascript; charset=utf-8",
  "frame.js": "application/javascript; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "try.js": "text/javascript; charset=utf-8",
  "payjs.d.ts": "application/typescript; charset=utf-8",
  "frame.html": "text/html; charset=utf-8",
};

function assetOf(name: BrowserFile, text: string): Asset {
  const body = new TextEncoder().encode(text);
  return { body, gzip: Bun.gzipSync(body), etag: `"${Bun.hash(body).toString(36)}"`, contentType: CONTENT_TYPES[name] };
}

/** The modification times of every file under the source folders: changes when one is edited, added or removed. */
function sourcesSignature(): string {
  const stamps: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else stamps.push(`${path}:${statSync(path).mtimeMs}`);
    }
  };
  for (const dir of SOURCE_DIRS) walk(join(PROJECT_ROOT, dir));
  return stamps.join("|");
}

/** The files one set of routes serves: each made on first use (or taken from the binary) and kept. */
export function browserAssets(options: { dev: boolean }): BrowserAssets {
  const prebuilt = PREBUILT;
  const make = (name: BrowserFile): Promise<Asset> =>
    prebuilt
      ? Promise.resolve(assetOf(name, prebuilt[name]))
      : buildBrowserFile(name).then((text) => assetOf(name, text));
  const built = new Map<BrowserFile, { asset: Promise<Asset>; signature: string | null }>();
  return {
    get(name) {
      // Only a development server running from a checkout looks for edited sources.
      const signature = options.dev && !prebuilt ? sourcesSignature() : null;
      const entry = built.get(name);
      if (entry && entry.signature === signature) return entry.asset;
      const asset = make(name);
      built.set(name, { asset, signature });
      asset.catch(() => {
        if (built.get(name)?.asset === asset) built.delete(name);
      });
      return asset;
    },
  };
}
