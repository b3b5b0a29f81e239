/**
 * The fenced blocks of README.md and docs/*.md, and what each one's marker says about it. Every
 * block has an HTML comment right before it (blank lines between are allowed):
 *
 * - `<!-- doc-test: ID -->` — a test runs the block as printed; it reads it with `docBlock(ID)`,
 *   and tests/docs/coverage.test.ts fails if no test file calls `docBlock("ID")`;
 * - `<!-- not run: REASON -->` — output, a diagram, configuration for a tool the tests do not
 *   start, a fragment of a block that is run elsewhere…: the reason says which;
 * - `<!-- example RUNNER: PATH -->` (docs/testing.md, run by tests/testing/docs-examples.test.ts)
 *   and `<!-- wire-example: NAME -->` (docs/mobile.md, checked by tests/mobile/wire.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dir, "..", "..");

/** README.md and every docs/*.md, as paths from the repository's root. */
export const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

export interface Block {
  /** The document, e.g. `docs/testing.md`. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  /** The block's text with the list indentation of its fence removed, ending in a newline. */
  code: string;
  /** The HTML comment right before the block, without `<!--` and `-->`, or undefined. */
  marker: string | undefined;
}

/** Every fenced block of one document. */
export function blocksOf(doc: string, text = readFileSync(join(ROOT, doc), "utf8")): Block[] {
  const blocks: Block[] = [];
  const fence = /^( *)(```+)([\w-]*)[^\n]*\n([\s\S]*?)^\1\2 *$/gm;
  for (const match of text.matchAll(fence)) {
    const indent = match[1]!.length;
    const before = text.slice(0, match.index);
    const marker = /<!--((?:(?!-->)[\s\S])*)-->\s*$/.exec(before)?.[1]?.trim();
    blocks.push({
      doc,
      line: before.split("\n").length,
      language: match[3]!,
      code: match[4]!
        .split("\n")
        .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
        .join("\n"),
      marker,
    });
  }
  return blocks;
}

export function allBlocks(): Block[] {
  return DOCS.flatMap((doc) => blocksOf(doc));
}

/** The id of a `doc-test: ID` marker, or undefined. */
export function testId(block: Block): string | undefined {
  return /^doc-test: ([\w-]+)$/.exec(block.marker ?? "")?.[1];
}

/** The block marked `<!-- doc-test: ID -->`, in whichever document it is. */
export function docBlock(id: string): Block {
  const found = allBlocks().filter((block) => testId(block) === id);
  if (found.length !== 1) throw new Error(`expected one block marked doc-test: ${id}, found ${found.length}`);
  return found[0]!;
}
