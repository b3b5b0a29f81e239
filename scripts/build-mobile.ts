/**
 * Builds the mobile SDK package (packages/mobile/ → packages/mobile/dist): what `npm pack` in packages/mobile/ ships.
 *
 * - dist/index.js (ESM) and dist/index.cjs (CommonJS), bundled by Bun: the shared rules the SDK
 *   imports from payjs/ (card-rules, validation, messages, codes) are inlined, so the package has
 *   no dependencies and no path outside itself.
 * - dist/index.d.ts, one self-contained declaration file rolled up by dts-bundle-generator (only
 *   the types the SDK exports, none of payjs.js's browser globals), copied as dist/index.d.cts for
 *   CommonJS consumers.
 *
 * Run: `npm run build:mobile` (also run by `npm pack` in packages/mobile/, its prepack script).
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const PACKAGE = join(ROOT, "packages", "mobile");
const DIST = join(PACKAGE, "dist");
const ENTRY = join(PACKAGE, "index.ts");

async function bundle(format: "esm" | "cjs", file: string): Promise<void> {
  const built = await Bun.build({ entrypoints: [ENTRY], target: "browser", format, minify: false, sourcemap: "none" });
  if (!built.success) throw new Error(built.logs.map(String).join("\n"));
  writeFileSync(join(DIST, file), await built.outputs[0]!.text());
}

async function declarations(): Promise<void> {
  const tsconfig = join(DIST, "tsconfig.dts.json");
  writeFileSync(
    tsconfig,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        lib: ["ES2022", "DOM"],
        types: [],
        strict: true,
      },
      files: [ENTRY],
    }),
  );
  const tool = join(ROOT, "node_modules", ".bin", "dts-bundle-generator");
  const child = Bun.spawn(
    [tool, "--project", tsconfig, "--no-banner", "--no-check", "-o", join(DIST, "index.d.ts"), ENTRY],
    { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
  );
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  rmSync(tsconfig);
  if (code !== 0) throw new Error(`dts-bundle-generator failed:\n${stderr}`);
  copyFileSync(join(DIST, "index.d.ts"), join(DIST, "index.d.cts"));
}

rmSync(DIST, { recursive: true, force: true });
mkdirSync(DIST, { recursive: true });
await bundle("esm", "index.js");
await bundle("cjs", "index.cjs");
await declarations();
copyFileSync(join(ROOT, "LICENSE"), join(DIST, "LICENSE"));
console.log(`built ${DIST}: index.js, index.cjs, index.d.ts, index.d.cts, LICENSE`);
