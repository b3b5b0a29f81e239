/**
 * No source file over 400 lines is ESLint's max-lines (tools/eslint/config.js, run by `npm run
 * lint`). The files it still lets through are listed there to be split; this test keeps that list
 * honest: a listed file that is gone or back under the limit must leave the list.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const CONFIG = readFileSync(join(ROOT, "tools/eslint/config.js"), "utf8");
const LIMIT = 400;

/** The files of the config block that turns max-lines off. */
export function exceptions(config: string): string[] {
  const block = /files:\s*\[([^\]]*)\],\s*rules:\s*\{\s*"max-lines":\s*"off"/.exec(config);
  if (!block) return [];
  return [...block[1]!.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

const lineCount = (path: string) => readFileSync(join(ROOT, path), "utf8").split("\n").length - 1;

describe("source files of at most 400 lines", () => {
  test("max-lines is on at 400, blank lines and comments counted", () => {
    expect(CONFIG).toContain(`"max-lines": ["error", { max: ${LIMIT}, skipBlankLines: false, skipComments: false }]`);
  });

  test("each file still let through exists and is still over the limit", () => {
    const listed = exceptions(CONFIG);
    const stale = listed.filter((path) => !existsSync(join(ROOT, path)) || lineCount(path) <= LIMIT);
    expect(stale).toEqual([]);
  });

  test("the list is read from the config", () => {
    const config = `{ files: ["a.ts", "b/c.ts"], rules: { "max-lines": "off" } }`;
    expect(exceptions(config)).toEqual(["a.ts", "b/c.ts"]);
  });
});
