/**
 * package.json's test scripts stay true to the layout: every file `npm run test:fast` leaves out
 * by path exists (a moved file would otherwise slip into the fast loop, or a stale pattern hide
 * nothing), the fast loop leaves out the browser and reliability suites, and `npm test` leaves out
 * nothing.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json";

const ROOT = join(import.meta.dir, "..", "..");
const ignored = (script: string) => [...script.matchAll(/--path-ignore-patterns='([^']+)'/g)].map((m) => m[1]!);

describe("the test scripts", () => {
  test("each path test:fast leaves out matches a test file", () => {
    const patterns = ignored(pkg.scripts["test:fast"]);
    expect(patterns.length).toBeGreaterThan(0);
    const unmatched = patterns.filter((pattern) => {
      const files = [...new Bun.Glob(pattern).scanSync({ cwd: ROOT })];
      return !files.some((file) => file.endsWith(".test.ts"));
    });
    expect(unmatched).toEqual([]);
  });

  test("test:fast leaves out the browser and reliability suites; npm test runs every file", () => {
    expect(ignored(pkg.scripts["test:fast"])).toEqual(
      expect.arrayContaining(["tests/browser/**", "tests/reliability/**"]),
    );
    expect(pkg.scripts.test).toContain("bun test");
    expect(ignored(pkg.scripts.test)).toEqual([]);
  });
});
