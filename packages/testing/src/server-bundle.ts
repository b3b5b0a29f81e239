/**
 * The prebuilt server the toolkit starts: src/entry/server.ts bundled into one CommonJS file with
 * its bytecode (testing/dist/server, made by scripts/build-testing.ts, which `npm pack` runs). Bun
 * then loads one file it need not parse instead of resolving and transpiling every TypeScript
 * module of src/, which was most of startSandbox()'s time. Beside it, a database with every
 * migration applied and no rows: copied as the sandbox's new database, it spares each start the
 * migrations. The manifest records every source file both were built from; when one differs (an
 * edit in a checkout after the build) or the bundle is missing, the toolkit runs the sources on a
 * new database, so it never starts a server, or a schema, older than its code.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The bundle and its manifest, in the folder "server" beside the built toolkit (testing/dist/server). */
export const SERVER_BUNDLE_FILE = "server.js";
export const SERVER_MANIFEST_FILE = "manifest.json";
export const SERVER_TEMPLATE_FILE = "template.sqlite";

export interface ServerManifest {
  /** When the build read its sources (ms since the epoch): a file not modified since is unchanged. */
  builtAtMs: number;
  /** Each source file, by its path below the package root ("/"-separated). */
  files: Record<string, { size: number; sha1: string }>;
}

export function sha1Of(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}

/**
 * True when every source file the bundle was built from is still what it was. Sizes are compared
 * for every file; contents only for files modified after the build (npm's tarball dates every
 * file in 1985, a checkout's git operations date them now), so the usual check costs one stat a file.
 */
export function bundleIsFresh(root: string, manifest: ServerManifest): boolean {
  for (const [path, recorded] of Object.entries(manifest.files)) {
    const file = join(root, path);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(file);
    } catch {
      return false;
    }
    if (stat.size !== recorded.size) return false;
    if (stat.mtimeMs >= manifest.builtAtMs && sha1Of(readFileSync(file)) !== recorded.sha1) return false;
  }
  return true;
}

export interface ServerFiles {
  /** The script Bun runs. */
  script: string;
  /** The migrated empty database to start from, when the bundle has one. */
  template?: string;
}

/**
 * What to run the sandbox from: the bundle in `dir` (and its template database) when it is there
 * and was built from today's sources, else src/entry/server.ts on a new database. `--dev`
 * (rebuild browser files on edit) always runs the sources.
 */
export function serverFiles(root: string, dir: string | undefined, args: readonly string[]): ServerFiles {
  const source = { script: join(root, "src", "entry", "server.ts") };
  if (!dir || args.includes("--dev")) return source;
  let manifest: ServerManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, SERVER_MANIFEST_FILE), "utf8")) as ServerManifest;
    statSync(join(dir, SERVER_BUNDLE_FILE));
  } catch {
    return source;
  }
  if (!bundleIsFresh(root, manifest)) return source;
  const template = join(dir, SERVER_TEMPLATE_FILE);
  return { script: join(dir, SERVER_BUNDLE_FILE), ...(existsSync(template) ? { template } : {}) };
}
