/**
 * Reads project sources the same way from a checkout and from the compiled binary.
 *
 * A compiled binary cannot hand embedded file paths to Bun.build, so everything bundled or read
 * at run time (payjs sources, frame pages) goes through here: from a checkout the files are read
 * from disk on every call (so --dev sees edits), from the binary they come from the text that
 * scripts/build.ts embedded. Give `bundleSources(dir)` to Bun.build as `files` and resolve the
 * entry point with `sourcePath()`; the same code path then works in both.
 *
 * @example
 *   await Bun.build({ entrypoints: [sourcePath("packages/payjs/browser.ts")], files: bundleSources("packages/payjs"), target: "browser" });
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { EMBEDDED_FILES } from "./embedded-files";

/** Directories (relative to the project root) whose files the binary embeds. */
export const EMBEDDED_DIRS = ["packages/payjs", "packages/rules", "src/http/dashboard/browser"] as const;

/** File names the binary embeds: sources and page assets, never tests. */
export function isEmbeddable(path: string): boolean {
  return /\.(ts|js|html|css|svg|json|txt)$/.test(path) && !/\.test\.ts$/.test(path);
}

/** The project root on disk; a virtual root inside the binary (keys Bun.build's `files`). */
export const SOURCE_ROOT: string = EMBEDDED_FILES ? "/paysandbox-embedded" : resolve(import.meta.dir, "..", "..");

/** True in the compiled binary. */
export function isCompiled(): boolean {
  return EMBEDDED_FILES !== null;
}

/** The absolute path of a project file, as Bun.build's entrypoints and `files` keys expect it. */
export function sourcePath(relativePath: string): string {
  return join(SOURCE_ROOT, relativePath);
}

/** Every embeddable file under `dir` (relative to the root), as root-relative paths, from disk. */
export function listSourceFiles(dir: string, root: string = SOURCE_ROOT): string[] {
  const found: string[] = [];
  const walk = (absolute: string) => {
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      const path = join(absolute, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (isEmbeddable(entry.name)) {
        found.push(relative(root, path).split(sep).join("/"));
      }
    }
  };
  const start = join(root, dir);
  if (statSync(start, { throwIfNoEntry: false })?.isDirectory()) walk(start);
  return found.sort();
}

/** The text of one project file ("src/http/dashboard/browser/client.ts"); throws when it does not exist. */
export function readSourceFile(relativePath: string): string {
  if (EMBEDDED_FILES) {
    const text = EMBEDDED_FILES[relativePath];
    if (text === undefined) throw new Error(`${relativePath} is not embedded in this binary (see EMBEDDED_DIRS)`);
    return text;
  }
  return readFileSync(sourcePath(relativePath), "utf8");
}

/** Every file under `dir`, keyed by absolute path: the `files` option of Bun.build. */
export function bundleSources(dir: string): Record<string, string> {
  const prefix = dir.replace(/\/+$/, "") + "/";
  const files: Record<string, string> = {};
  if (EMBEDDED_FILES) {
    for (const [path, text] of Object.entries(EMBEDDED_FILES)) {
      if (path.startsWith(prefix)) files[sourcePath(path)] = text;
    }
  } else {
    for (const path of listSourceFiles(dir)) files[sourcePath(path)] = readFileSync(sourcePath(path), "utf8");
  }
  return files;
}
