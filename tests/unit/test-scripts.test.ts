/**
 * package.json's test scripts stay true to the layout: every file `npm run test:fast` leaves out
 * by path exists (a moved file would otherwise slip into the fast loop, or a stale pattern hide
 * nothing), the fast loop leaves out the browser and reliability suites, and `npm test` leaves out
 * nothing. The same holds for `npm run test:postgres`: the folders it runs and the files it leaves
 * out exist.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";

const ROOT = join(import.meta.dir, "..", "..");
const ignored = (script: string) => [...script.matchAll(/--path-ignore-patterns='([^']+)'/g)].map((m) => m[1]!);

/** The patterns that match no test file. */
const unmatched = (patterns: string[]) =>
  patterns.filter((pattern) => {
    const files = [...new Bun.Glob(pattern).scanSync({ cwd: ROOT })];
    return !files.some((file) => file.endsWith(".test.ts"));
  });

describe("the test scripts", () => {
  test("each path test:fast leaves out matches a test file", () => {
    const patterns = ignored(pkg.scripts["test:fast"]);
    expect(patterns.length).toBeGreaterThan(0);
    expect(unmatched(patterns)).toEqual([]);
  });

  test("each folder test:postgres runs and each path it leaves out match a test file", () => {
    const script = pkg.scripts["test:postgres"];
    const folders = [...script.matchAll(/ (tests\/[\w/-]+)(?= |$)/g)].map((m) => `${m[1]}/**`);
    expect(folders.length).toBeGreaterThan(0);
    expect(unmatched(folders)).toEqual([]);
    expect(unmatched(ignored(script))).toEqual([]);
  });

  test("test:fast leaves out the browser and reliability suites; npm test runs every file", () => {
    expect(ignored(pkg.scripts["test:fast"])).toEqual(
      expect.arrayContaining(["tests/browser/**", "tests/reliability/**"]),
    );
    expect(pkg.scripts.test).toContain("bun test");
    expect(ignored(pkg.scripts.test)).toEqual([]);
  });

  test("test:fast shares one module registry per worker; npm test runs every file isolated", () => {
    expect(pkg.scripts["test:fast"]).toContain("--no-isolate");
    expect(pkg.scripts.test).not.toContain("--no-isolate");
    expect(pkg.scripts["test:postgres"]).not.toContain("--no-isolate");
  });

  test("test:fast starts the slowest files first, by a timings file that names only test files", async () => {
    const timings = pkg.scripts["test:fast"].match(/--timings=(\S+)/)?.[1];
    expect(timings).toBe("tests/fast-timings.json");
    const { version, files } = await Bun.file(join(ROOT, timings!)).json();
    expect(version).toBe(1);
    const named = Object.keys(files);
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter((file) => !existsSync(join(ROOT, file)) || !file.endsWith(".test.ts"))).toEqual([]);
  });
});
