/**
 * README.md and docs/*.md hold nothing a reader can paste that no test runs: every fenced block
 * is marked as run by a test (and that test reads it), or as not runnable with the reason; and
 * every file or folder the prose points at exists.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { allBlocks, DOCS, ROOT, testId } from "./blocks";

/** Every test file's text, by path. */
const TEST_SOURCES = new Map(
  [...new Bun.Glob("tests/**/*.ts").scanSync({ cwd: ROOT })]
    .filter((path) => !path.includes("node_modules"))
    .map((path) => [path, readFileSync(join(ROOT, path), "utf8")] as const),
);

/** The ids tests read with docBlock("…"). */
function idsReadByTests(): Map<string, string[]> {
  const read = new Map<string, string[]>();
  for (const [path, text] of TEST_SOURCES) {
    for (const match of text.matchAll(/docBlock\("([a-z0-9-]+)"\)/g)) {
      read.set(match[1]!, [...(read.get(match[1]!) ?? []), path]);
    }
  }
  return read;
}

/**
 * Folders the docs name that a run makes rather than the repository holds: what `npm start`,
 * `npm run build`, the tests and the integrator's own project create.
 */
const MADE_BY_A_RUN = /^(\.\/)?(\.paysandbox|dist|test-artifacts|test-results)\//;

/** What a piece of prose points at in the repository: link targets and path-like code spans. */
function pathsIn(doc: string, markdown = readFileSync(join(ROOT, doc), "utf8")): string[] {
  const text = markdown.replace(/^( *)(```+)[^\n]*\n[\s\S]*?^\1\2 *$/gm, "");
  const paths: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!.split("#")[0]!;
    if (!target || /^[a-z]+:/.test(target)) continue;
    paths.push(join(dirname(doc), target));
  }
  for (const match of text.matchAll(/`([^`\s]+)`/g)) {
    let span = match[1]!.replace(/^node_modules\/paysandbox\//, "");
    if (/^[a-z]+:|^\/|[{}<>*$…]|^\.\.\//.test(span) || MADE_BY_A_RUN.test(span)) continue;
    const isFolder = /^[\w.-]+(\/[\w.-]+)*\/$/.test(span);
    const isFile = /^[\w.-]+(\/[\w.-]+)+\.(ts|js|mjs|cjs|md|json|ya?ml|html|sql|toml)$/.test(span);
    if (!isFolder && !isFile) continue;
    span = span.replace(/\/$/, "");
    paths.push(existsSync(join(ROOT, dirname(doc), span)) ? join(dirname(doc), span) : span);
  }
  return paths;
}

describe("the documents' blocks", () => {
  const blocks = allBlocks();

  test("every fenced block is marked: run by a test, or not run and why", () => {
    const unmarked = blocks
      .filter(
        (block) =>
          !testId(block) &&
          !/^not run: \S+/.test(block.marker ?? "") &&
          !(block.doc === "docs/testing.md" && /^example \w+: \S+$/.test(block.marker ?? "")) &&
          !(block.doc === "docs/mobile.md" && /^wire-example: [\w-]+$/.test(block.marker ?? "")),
      )
      .map((block) => `${block.doc}:${block.line} (${block.marker ?? "no marker"})`);
    expect(unmarked).toEqual([]);
    expect(blocks.length).toBeGreaterThan(50);
  });

  test("every block marked doc-test is read by a test, under an id no other block has", () => {
    const ids = blocks.map(testId).filter((id): id is string => id !== undefined);
    expect(ids.length).toBeGreaterThan(10);
    expect(new Set(ids).size).toBe(ids.length);
    const read = idsReadByTests();
    expect(ids.filter((id) => !read.has(id))).toEqual([]);
    // …and every id a test reads is in a document (docBlock() throws too, when the test runs).
    expect([...read.keys()].filter((id) => !ids.includes(id))).toEqual([]);
  });

  test("the wire examples of docs/mobile.md are the ones tests/mobile/wire.test.ts reads", () => {
    const names = blocks.flatMap((block) => /^wire-example: ([\w-]+)$/.exec(block.marker ?? "")?.[1] ?? []);
    const wire = TEST_SOURCES.get("tests/mobile/wire.test.ts")!;
    expect(names.length).toBeGreaterThan(3);
    expect(names.filter((name) => !wire.includes(`"${name}"`))).toEqual([]);
  });
});

describe("the documents' paths", () => {
  test.each(DOCS)("every file and folder %s points at exists", (doc) => {
    const missing = pathsIn(doc).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
  });

  test("finds the paths a reader would follow, and so the ones that are not there", () => {
    const text = "Source in `mobile/` (see [the wire](mobile.md#the-wire)), built by `scripts/none.ts`; `--port 0`.";
    expect(pathsIn("docs/x.md", text)).toEqual(["docs/mobile.md", "mobile", "scripts/none.ts"]);
    expect(pathsIn("docs/mobile.md")).toContain("packages/mobile");
  });
});
