/**
 * Reads the examples of docs/testing.md and builds the projects they run in: a new folder whose
 * node_modules holds this package unpacked from its `npm pack` tarball, as npm lays it out, beside
 * links to the dependencies `npm ci` installed here (so the runners and the sandbox's own
 * dependencies come from the lockfile, offline and in seconds).
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const DOC = join(ROOT, "docs", "testing.md");

export interface Example {
  runner: string;
  path: string;
  code: string;
}

/** Every `<!-- example RUNNER: PATH -->` marker of docs/testing.md with the fenced block after it. */
export function readExamples(markdown = readFileSync(DOC, "utf8")): Example[] {
  const examples: Example[] = [];
  const marker = /<!-- example (\w+): (\S+) -->\s*\n\s*```\w*\n([\s\S]*?)\n```/g;
  for (const match of markdown.matchAll(marker)) {
    examples.push({ runner: match[1]!, path: match[2]!, code: match[3]! + "\n" });
  }
  return examples;
}

export function examplesOf(runner: string): Example[] {
  const found = readExamples().filter((example) => example.runner === runner);
  if (found.length === 0) throw new Error(`docs/testing.md has no example for ${runner}`);
  return found;
}

/** `npm pack` of this repository (which builds testing/dist first) into `dir`; the tarball's path. */
export function packTarball(dir: string): string {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [packed] = JSON.parse(output.slice(output.indexOf("["))) as [{ filename: string }];
  return join(dir, packed.filename);
}

/**
 * A project folder with the package installed from `tarball` and `files` written in it. Test
 * files named *.test.* or *.spec.* are written twice (-a and -b) so the runner has two files to
 * run at once, each with a merchant of its own.
 */
export function makeProject(tarball: string, files: Example[], packageJson: object): string {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-docs-"));
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  execFileSync("tar", ["-xzf", tarball, "-C", modules]);
  renameSync(join(modules, "package"), join(modules, "paysandbox"));
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry === "paysandbox" || entry === ".package-lock.json") continue;
    symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry));
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson, null, 2));
  for (const file of files) {
    const copies = /\.(test|spec)\.\w+$/.test(file.path)
      ? [file.path.replace(/(\.(?:test|spec)\.\w+)$/, "-a$1"), file.path.replace(/(\.(?:test|spec)\.\w+)$/, "-b$1")]
      : [file.path];
    for (const path of copies) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), file.code);
    }
  }
  return dir;
}

export function removeProject(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * A package-lock.json for a project that depends on `paysandbox` from `tarballSpec`, holding the
 * package's runtime dependencies exactly as this repository's lockfile resolves them. `npm
 * install` of the tarball then finds every package in npm's cache (`npm ci` here put them there)
 * and runs offline; it installs, and prints, what a first install from the registry would.
 */
export function lockfileFor(tarballSpec: string, project: { name: string }): object {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; link?: boolean; dependencies?: Record<string, string> }>;
  };
  const packages: Record<string, object> = {
    "": { name: project.name, devDependencies: { paysandbox: tarballSpec } },
    "node_modules/paysandbox": {
      version: JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version,
      resolved: tarballSpec,
      dev: true,
      dependencies: lock.packages[""]!.dependencies,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.dev || entry.link) continue;
    packages[path] = { ...entry, dev: true };
  }
  return { name: project.name, lockfileVersion: 3, requires: true, packages };
}
