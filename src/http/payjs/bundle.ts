/**
 * Builds payjs.js and the frame script from packages/payjs (and packages/rules) with Bun.build, in memory. The sources are
 * imported as text so they are embedded in a compiled binary (which cannot hand embedded file
 * paths to Bun.build) and passed through Bun.build's `files`; in development (--dev) they are
 * re-read from disk and the bundle is rebuilt when one of them changes.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as browserTs from "../../../packages/payjs/browser.ts" with { type: "text" };
import * as cardFormTs from "../../../packages/payjs/card-form.ts" with { type: "text" };
import * as cardRulesTs from "../../../packages/rules/card-rules.ts" with { type: "text" };
import * as codesTs from "../../../packages/rules/codes.ts" with { type: "text" };
import * as errorsTs from "../../../packages/payjs/errors.ts" with { type: "text" };
import * as frameHtml from "../../../packages/payjs/frame.html" with { type: "text" };
import * as frameTs from "../../../packages/payjs/frame.ts" with { type: "text" };
import * as httpTs from "../../../packages/payjs/http.ts" with { type: "text" };
import * as messagesTs from "../../../packages/rules/messages.ts" with { type: "text" };
import * as payjsTs from "../../../packages/payjs/payjs.ts" with { type: "text" };
import * as protocolTs from "../../../packages/payjs/protocol.ts" with { type: "text" };
import * as styleTs from "../../../packages/payjs/style.ts" with { type: "text" };
import * as typesTs from "../../../packages/payjs/types.ts" with { type: "text" };
import * as validationTs from "../../../packages/rules/validation.ts" with { type: "text" };

// A text import is a module whose default export is the file's text.
const text = (module: unknown): string => (module as { default: string }).default;

/** Every file of packages/payjs and packages/rules the two bundles and the typings are made of, by path under packages/. */
const EMBEDDED: Record<string, string> = {
  "payjs/browser.ts": text(browserTs),
  "payjs/card-form.ts": text(cardFormTs),
  "rules/card-rules.ts": text(cardRulesTs),
  "rules/codes.ts": text(codesTs),
  "payjs/errors.ts": text(errorsTs),
  "payjs/frame.html": text(frameHtml),
  "payjs/frame.ts": text(frameTs),
  "payjs/http.ts": text(httpTs),
  "rules/messages.ts": text(messagesTs),
  "payjs/payjs.ts": text(payjsTs),
  "payjs/protocol.ts": text(protocolTs),
  "payjs/style.ts": text(styleTs),
  "payjs/types.ts": text(typesTs),
  "rules/validation.ts": text(validationTs),
};
export const SOURCE_FILES: readonly string[] = Object.keys(EMBEDDED);

/** Where the sources are on disk when running from a checkout (absent in a compiled binary). */
const SOURCE_DIR = join(import.meta.dir, "..", "..", "..", "packages");
/** Bun.build needs absolute paths; these never touch the disk. */
const VIRTUAL_DIR = "/paysandbox-payjs";

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
  contentType: string;
}

export interface PayJsAssets {
  /** /payjs.js */
  library: Asset;
  /** /payjs/frame.js */
  frame: Asset;
  /** /payjs.d.ts */
  typings: Asset;
  /** The frame page (number and CVV). */
  frameHtml: Asset;
}

function asset(content: string, contentType: string): Asset {
  const body = new TextEncoder().encode(content);
  return { body, gzip: Bun.gzipSync(body), etag: `"${Bun.hash(body).toString(36)}"`, contentType };
}

/** Imports as `./name` or `../rules/name` (the repository's style) → with `.ts`, which in-memory files need. */
function withExtensions(source: string): string {
  return source.replace(/(\bfrom\s+["']\.\.?\/(?:[\w-]+\/)?[\w-]+)(["'])/g, "$1.ts$2");
}

/**
 * The served typings: types.ts with the API's error codes inlined, so the file stands alone.
 */
export function typingsOf(sources: Record<string, string>): string {
  const union = (name: string) => {
    const found = new RegExp(`export type ${name} =[\\s\\S]*?"\\s*;`).exec(sources["rules/codes.ts"]!)?.[0];
    if (!found) throw new Error(`packages/rules/codes.ts: no ${name} union to inline into payjs.d.ts`);
    return found;
  };
  const body = sources["payjs/types.ts"]!.replace(/import type \{ [\w, ]+ \} from "\.\.\/rules\/codes";\n/, "");
  const header = `// payjs.d.ts: the typings of payjs.js, served by paysandbox.\n\n/** Error codes the API answers with (see the error envelope). */\n${union("ApiErrorCode")}\n\n/** Why the processor declined a payment (a 402's decline_code). */\n${union("DeclineCode")}\n`;
  return body.replace(/^(\/\*\*[\s\S]*?\*\/\n)/, `$1${header}`);
}

async function bundle(sources: Record<string, string>, entry: string): Promise<string> {
  const files: Record<string, string> = {};
  for (const [name, content] of Object.entries(sources)) {
    if (name.endsWith(".ts")) files[`${VIRTUAL_DIR}/${name}`] = withExtensions(content);
  }
  const result = await Bun.build({
    entrypoints: [`${VIRTUAL_DIR}/${entry}`],
    files,
    target: "browser",
    format: "iife",
    minify: true,
  });
  if (!result.success || !result.outputs[0]) {
    throw new Error(`payjs build failed: ${result.logs.map((log) => String(log)).join("\n")}`);
  }
  return result.outputs[0].text();
}

export async function buildAssets(sources: Record<string, string> = EMBEDDED): Promise<PayJsAssets> {
  const [library, frame] = await Promise.all([bundle(sources, "payjs/browser.ts"), bundle(sources, "payjs/frame.ts")]);
  return {
    library: asset(library, "application/javascript; charset=utf-8"),
    frame: asset(frame, "application/javascript; charset=utf-8"),
    typings: asset(typingsOf(sources), "application/typescript; charset=utf-8"),
    frameHtml: asset(sources["payjs/frame.html"]!, "text/html; charset=utf-8"),
  };
}

/** The sources on disk and a signature of their modification times, or null without a checkout. */
function diskSources(): { sources: Record<string, string>; signature: string } | null {
  try {
    const stamps = SOURCE_FILES.map((name) => `${name}:${statSync(join(SOURCE_DIR, name)).mtimeMs}`);
    const sources: Record<string, string> = {};
    for (const name of SOURCE_FILES) sources[name] = readFileSync(join(SOURCE_DIR, name), "utf8");
    return { sources, signature: stamps.join("|") };
  } catch {
    return null;
  }
}

function diskSignature(): string | null {
  try {
    return SOURCE_FILES.map((name) => `${name}:${statSync(join(SOURCE_DIR, name)).mtimeMs}`).join("|");
  } catch {
    return null;
  }
}

/**
 * The assets, built once on first use and kept in memory; with `dev`, rebuilt from disk when a
 * source file changed since the last build. Concurrent first requests share one build.
 */
export function payjsAssets(options: { dev: boolean }): () => Promise<PayJsAssets> {
  let built: Promise<PayJsAssets> | null = null;
  let signature: string | null = null;
  return () => {
    if (options.dev) {
      const current = diskSignature();
      if (current !== null && current !== signature) {
        const disk = diskSources();
        if (disk) {
          signature = disk.signature;
          built = buildAssets(disk.sources);
        }
      }
    }
    built ??= buildAssets();
    // A failed build is not cached: the next request tries again.
    built.catch(() => {
      built = null;
      signature = null;
    });
    return built;
  };
}
