/**
 * Builds the files the sandbox serves to browsers from their sources in the checkout: payjs.js
 * and the card frames' script (packages/payjs, with packages/rules), the dashboard's client
 * scripts (src/http/dashboard/browser), the frame page and payjs.d.ts. One path for all of them:
 * Bun.build on the files on disk, once. scripts/build.ts runs it when compiling the binary and
 * embeds the result (prebuilt.ts); from a checkout src/http/assets/index.ts runs it on first use.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The checkout's root. */
export const PROJECT_ROOT = resolve(import.meta.dir, "..", "..", "..");

/** The folders the files are built from (the development server rebuilds when one of their files changes). */
export const SOURCE_DIRS = ["packages/payjs", "packages/rules", "src/http/dashboard/browser"] as const;

/** Each bundle by name: its entry point, and how it runs in the page. */
const BUNDLES = {
  // Classic scripts in integrators' pages and the frames: one function scope, minified.
  "payjs.js": { entry: "packages/payjs/browser.ts", format: "iife", minify: true },
  "frame.js": { entry: "packages/payjs/frame.ts", format: "iife", minify: true },
  // Modules of the dashboard's own pages, kept readable.
  "dashboard.js": { entry: "src/http/dashboard/browser/client.ts", format: "esm", minify: false },
  "try.js": { entry: "src/http/dashboard/browser/try.ts", format: "esm", minify: false },
} as const;

/** Every browser file the sandbox serves, by name (the routes say at which paths). */
export const BROWSER_FILES = [
  ...(Object.keys(BUNDLES) as (keyof typeof BUNDLES)[]),
  "payjs.d.ts",
  "frame.html",
] as const;
export type BrowserFile = (typeof BROWSER_FILES)[number];

/**
 * The served typings, one file that stands alone: types.ts, then the records it re-exports
 * (records.ts), with the error and decline codes (rules/codes.ts) inlined for their imports.
 */
export function typingsOf(typesTs: string, recordsTs: string, codesTs: string): string {
  const union = (name: string) => {
    const found = new RegExp(`export type ${name} =[\\s\\S]*?"\\s*;`).exec(codesTs)?.[0];
    if (!found) throw new Error(`packages/rules/codes.ts: no ${name} union to inline into payjs.d.ts`);
    return found;
  };
  const withoutImports = (text: string) =>
    text
      .replace(/^import type \{ [\w, ]+ \} from "[./\w]+";\n/gm, "")
      .replace(/^export type \* from "[./\w]+";\n/gm, "");
  const header = `// payjs.d.ts: the typings of payjs.js, served by paysandbox.\n\n/** Error codes the API answers with (see the error envelope). */\n${union("ApiErrorCode")}\n\n/** Why the processor declined a payment (a 402's decline_code). */\n${union("DeclineCode")}\n`;
  const types = withoutImports(typesTs).replace(/^(\/\*\*[\s\S]*?\*\/\n)/, `$1${header}`);
  return `${types}\n${withoutImports(recordsTs)}`;
}

/** The text of one browser file, built from the sources under `root`. */
export async function buildBrowserFile(name: BrowserFile, root: string = PROJECT_ROOT): Promise<string> {
  const read = (file: string) => readFileSync(join(root, file), "utf8");
  if (name === "payjs.d.ts") {
    return typingsOf(
      read("packages/payjs/types.ts"),
      read("packages/payjs/records.ts"),
      read("packages/rules/codes.ts"),
    );
  }
  if (name === "frame.html") return read("packages/payjs/frame.html");
  const { entry, format, minify } = BUNDLES[name];
  const result = await Bun.build({ entrypoints: [join(root, entry)], target: "browser", format, minify });
  if (!result.success || !result.outputs[0]) {
    throw new Error(`building ${name} from ${entry} failed: ${result.logs.map(String).join("\n")}`);
  }
  return result.outputs[0].text();
}

/** Every browser file, by name (what scripts/build.ts embeds in the binary). */
export async function buildBrowserFiles(root: string = PROJECT_ROOT): Promise<Record<BrowserFile, string>> {
  const texts = await Promise.all(BROWSER_FILES.map((name) => buildBrowserFile(name, root)));
  return Object.fromEntries(BROWSER_FILES.map((name, index) => [name, texts[index]!])) as Record<BrowserFile, string>;
}
