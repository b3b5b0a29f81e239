#!/usr/bin/env bun
/**
 * Builds paysandbox/testing for Node 20+ and every test runner: testing/src (TypeScript, with the
 * repository's own webhook verifier, test data and example page bundled in, so the toolkit follows
 * them) becomes testing/dist/index.js (ESM) and index.cjs (CommonJS, what Jest loads), beside the
 * hand-written declarations (testing/index.d.ts and the parts it re-exports from testing/types/)
 * joined into one index.d.ts and index.d.cts. Node and its ecosystem cannot
 * load TypeScript, so the package ships JavaScript; Bun.build is already the repository's bundler.
 *
 * Beside it, testing/dist/server: the sandbox the toolkit starts, src/entry/server.ts bundled into
 * one CommonJS file with its bytecode and the browser files built in (as the compiled binary has
 * them), a migrated empty database to copy, and a manifest of the sources they were built from
 * (packages/testing/src/server-bundle.ts).
 * Bun loads it without resolving and transpiling each module of src/: startSandbox() is ready in
 * about half the time (`npm run bench`).
 *
 * Runs before `npm pack` (prepack), so the tarball holds it; not on install, where npm would
 * count it as an install script of the packed package.
 *
 *   bun scripts/build-testing.ts
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { buildBrowserFiles, SOURCE_DIRS } from "../src/http/assets/build";
import {
  SERVER_BUNDLE_FILE,
  SERVER_MANIFEST_FILE,
  SERVER_TEMPLATE_FILE,
  sha1Of,
  type ServerManifest,
} from "../packages/testing/src/server-bundle";
import { openSqlite } from "../src/storage/sqlite/database";

const ROOT = resolve(import.meta.dir, "..");
export const TESTING_DIST = join(ROOT, "packages", "testing", "dist");

export async function buildTesting(outdir: string = TESTING_DIST): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  for (const [format, extension] of [
    ["esm", ".js"],
    ["cjs", ".cjs"],
  ] as const) {
    const result = await Bun.build({
      entrypoints: [join(ROOT, "packages", "testing", "src", "index.ts")],
      outdir,
      target: "node",
      format,
      naming: `index${extension}`,
      // Only Node's own modules stay imports: the toolkit needs nothing else at run time.
      packages: "bundle",
    });
    if (!result.success) {
      throw new AggregateError(result.logs, `building paysandbox/testing (${format}) failed`);
    }
  }
  const declarations = joinedDeclarations(join(ROOT, "packages", "testing"));
  writeFileSync(join(outdir, "index.d.ts"), declarations);
  writeFileSync(join(outdir, "index.d.cts"), declarations);
  await buildServerBundle(join(outdir, "server"));
}

/**
 * The toolkit's declarations as one file that stands alone (a .d.cts cannot re-export an ES module's
 * declarations): each `export * from "./types/NAME";` of index.d.ts replaced by that part, and the
 * imports between the parts dropped.
 */
export function joinedDeclarations(dir: string): string {
  const part = /^export \* from "\.\/types\/([\w-]+)";\n/gm;
  const imports = /^import type \{[^}]*\} from "\.\/(?:types\/)?[\w-]+";\n/gm;
  const index = readFileSync(join(dir, "index.d.ts"), "utf8").replace(imports, "");
  return index.replace(part, (_, name: string) =>
    readFileSync(join(dir, "types", `${name}.d.ts`), "utf8").replace(imports, ""),
  );
}

/** Every file below `dir`, as paths relative to the root. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * src/entry/server.ts as one CommonJS file with bytecode, a migrated empty database, and the
 * manifest the toolkit checks them by.
 */
export async function buildServerBundle(outdir: string): Promise<void> {
  const builtAtMs = Date.now();
  const browserFiles = await buildBrowserFiles(ROOT);
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src", "entry", "server.ts")],
    outdir,
    target: "bun",
    // Bytecode outside a compiled binary needs CommonJS.
    format: "cjs",
    bytecode: true,
    naming: { entry: SERVER_BUNDLE_FILE, asset: "[name]-[hash].[ext]" },
    files: {
      [join(ROOT, "src/http/assets/prebuilt.ts")]: `export const PREBUILT = ${JSON.stringify(browserFiles)};\n`,
    },
    metafile: true,
  });
  if (!result.success || !result.metafile) {
    throw new AggregateError(result.logs, `building the toolkit's server bundle failed`);
  }
  // The project's own sources in the bundle (the dependencies are in it as they were installed),
  // the browser files' sources, and package.json (the version the server reports).
  const bundled = Object.keys(result.metafile.inputs)
    .map((input) => relative(ROOT, resolve(ROOT, input)))
    .filter((path) => !path.split(sep).includes("node_modules") && !path.startsWith(".."));
  const sources = new Set([...bundled, ...SOURCE_DIRS.flatMap(filesUnder), "package.json"]);
  const manifest: ServerManifest = { builtAtMs, files: {} };
  for (const path of [...sources].sort()) {
    const bytes = readFileSync(join(ROOT, path));
    manifest.files[path.split(sep).join("/")] = { size: bytes.length, sha1: sha1Of(bytes) };
  }
  // Every migration applied, no rows: the toolkit copies it rather than migrating at each start.
  await (await openSqlite(join(outdir, SERVER_TEMPLATE_FILE))).close();
  writeFileSync(join(outdir, SERVER_MANIFEST_FILE), JSON.stringify(manifest) + "\n");
}

if (import.meta.main) {
  await buildTesting();
  console.log(`paysandbox/testing built in ${TESTING_DIST}`);
}
