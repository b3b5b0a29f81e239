#!/usr/bin/env bun
/**
 * Builds paysandbox/testing for Node 20+ and every test runner: testing/src (TypeScript, with the
 * repository's own webhook verifier, test data and example page bundled in, so the toolkit follows
 * them) becomes testing/dist/index.js (ESM) and index.cjs (CommonJS, what Jest loads), beside the
 * hand-written declarations copied as index.d.ts and index.d.cts. Node and its ecosystem cannot
 * load TypeScript, so the package ships JavaScript; Bun.build is already the repository's bundler.
 *
 * Runs before `npm pack` (prepack), so the tarball holds it; not on install, where npm would
 * count it as an install script of the packed package.
 *
 *   bun scripts/build-testing.ts
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

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
  copyFileSync(join(ROOT, "packages", "testing", "index.d.ts"), join(outdir, "index.d.ts"));
  copyFileSync(join(ROOT, "packages", "testing", "index.d.ts"), join(outdir, "index.d.cts"));
}

if (import.meta.main) {
  await buildTesting();
  console.log(`paysandbox/testing built in ${TESTING_DIST}`);
}
