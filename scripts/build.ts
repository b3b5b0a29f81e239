#!/usr/bin/env bun
/**
 * `npm run build`: compiles the sandbox into one executable, dist/paysandbox, that runs with no
 * node_modules beside it. Everything the server imports is bundled; the files it reads or bundles
 * at run time (payjs sources, frame and dashboard assets: EMBEDDED_DIRS) are embedded as text by
 * replacing src/lib/embedded-files.ts, because a compiled binary cannot hand embedded file paths to
 * Bun.build.
 *
 *   bun scripts/build.ts [--outfile dist/paysandbox]
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { EMBEDDED_DIRS, listSourceFiles } from "../src/lib/embedded";

const ROOT = resolve(import.meta.dir, "..");

/** The texts of every embeddable file, keyed by root-relative path. */
export function collectEmbeddedFiles(root: string = ROOT): Record<string, string> {
  const files: Record<string, string> = {};
  for (const dir of EMBEDDED_DIRS) {
    for (const path of listSourceFiles(dir, root)) files[path] = readFileSync(join(root, path), "utf8");
  }
  return files;
}

const TEXT_IMPORT = /import\s+(?:\*\s+as\s+\w+|\w+)\s+from\s+["']([^"']+)["']\s+with\s*\{\s*type:\s*["']text["']\s*\}/g;

/** Every `import x from "./file" with { type: "text" }` of the project, as "importer\0specifier". */
export function findTextImports(root: string = ROOT): Set<string> {
  const found = new Set<string>();
  const glob = new Bun.Glob("**/*.ts");
  for (const path of glob.scanSync({ cwd: root })) {
    if (/^(node_modules|dist|tests|\.paysandbox)\//.test(path)) continue;
    const source = readFileSync(join(root, path), "utf8");
    for (const match of source.matchAll(TEXT_IMPORT)) found.add(`${join(root, path)}\0${match[1]}`);
  }
  return found;
}

/**
 * Keeps a text import a string in the binary. The bundler keys modules by path only, so a file
 * imported both as code (packages/rules/validation.ts by the server) and as text (by api/payjs/bundle.ts,
 * to bundle payjs.js at run time) would become one module and the text import would lose its
 * string. Each text import resolves instead to its own module exporting the file's text.
 */
const TEXT_PREFIX = "/paysandbox-text";

function textImportsPlugin(textImports: Set<string>): import("bun").BunPlugin {
  return {
    name: "paysandbox-text-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (!textImports.has(`${args.importer}\0${args.path}`)) return undefined;
        // A path of its own too: the bundler merges modules of one path even across namespaces.
        return {
          path: `${TEXT_PREFIX}${Bun.resolveSync(args.path, dirname(args.importer))}`,
          namespace: "paysandbox-text",
        };
      });
      build.onLoad({ filter: /.*/, namespace: "paysandbox-text" }, (args) => ({
        contents: `export default ${JSON.stringify(readFileSync(args.path.slice(TEXT_PREFIX.length), "utf8"))};`,
        loader: "js",
      }));
    },
  };
}

/** Compiles src/entry/server.ts into `outfile`; returns its size in bytes and the embedded file count. */
export async function buildBinary(outfile: string): Promise<{ outfile: string; bytes: number; embedded: number }> {
  const embedded = collectEmbeddedFiles();
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/entry/server.ts")],
    target: "bun",
    compile: { outfile },
    // Precompiled bytecode: the binary starts in ~100 ms instead of ~175 ms (npm run bench).
    bytecode: true,
    format: "esm",
    plugins: [textImportsPlugin(findTextImports())],
    files: {
      [join(ROOT, "src/lib/embedded-files.ts")]:
        `export const EMBEDDED_FILES: Readonly<Record<string, string>> | null = ${JSON.stringify(embedded)};\n`,
    },
  });
  if (!result.success) {
    throw new AggregateError(result.logs, `build failed:\n${result.logs.map(String).join("\n")}`);
  }
  return { outfile, bytes: statSync(outfile).size, embedded: Object.keys(embedded).length };
}

if (import.meta.main) {
  const at = process.argv.indexOf("--outfile");
  const outfile = resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1]! : join(ROOT, "dist/paysandbox"));
  const started = performance.now();
  const built = await buildBinary(outfile);
  const mb = (built.bytes / 1024 / 1024).toFixed(1);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`built ${built.outfile} (${mb} MB, ${built.embedded} embedded files) in ${seconds}s\n`);
}
