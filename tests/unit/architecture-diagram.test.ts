/**
 * docs/architecture.md's layer diagram is the import graph: each box is a folder (src/entry,
 * src/http, …, each package, scripts/, bench/), and there is an arrow from one box to another
 * exactly when a file of the first imports a file of the second. An arrow with no import behind it,
 * and an import between two boxes with no arrow, both fail here.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

export interface Diagram {
  /** Box id → the folder it stands for ("src/http/", "packages/rules/", "scripts/"). */
  boxes: Map<string, string>;
  /** "from --> to", one per arrow. */
  arrows: Set<string>;
}

/**
 * Reads the first mermaid block of a markdown text. A box's folder is the start of its label
 * ("src/http<br/>…" → src/http/, "scripts/<br/>…" → scripts/); a box inside the `packages`
 * subgraph is packages/<id>/. Arrows are `a --> b`, chains (`a --> b --> c`) and `&` lists
 * (`a --> b & c`).
 */
export function readDiagram(markdown: string): Diagram {
  const block = /```mermaid\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (!block) throw new Error("no mermaid block");
  const boxes = new Map<string, string>();
  const arrows = new Set<string>();
  let subgraph: string | null = null;
  for (const raw of block.split("\n")) {
    const line = raw.trim();
    const opens = /^subgraph\s+(\w+)/.exec(line);
    if (opens) {
      subgraph = opens[1]!;
      continue;
    }
    if (line === "end") {
      subgraph = null;
      continue;
    }
    const box = /^(\w+)\["([^"<]*)/.exec(line);
    if (box) {
      const [, id, label] = box as unknown as [string, string, string];
      const folder = subgraph === "packages" ? `packages/${id}/` : `${label.trim().replace(/\/$/, "")}/`;
      boxes.set(id, folder);
      continue;
    }
    if (!line.includes("-->")) continue;
    const steps = line.split("-->").map((step) => step.split("&").map((id) => id.trim()));
    for (let i = 0; i + 1 < steps.length; i++) {
      for (const from of steps[i]!) for (const to of steps[i + 1]!) arrows.add(`${from} --> ${to}`);
    }
  }
  for (const arrow of arrows) {
    for (const id of arrow.split(" --> ")) {
      if (!boxes.has(id)) throw new Error(`the arrow ${arrow} names ${id}, which is no box`);
    }
  }
  return { boxes, arrows };
}

/** The module specifiers a file imports: static, re-exported, side-effect and dynamic imports. */
export function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm)) {
    found.push(match[1]!);
  }
  return found;
}

/**
 * The box-to-box imports of a tree (path → text), as "from --> to" with one example each. A
 * relative specifier is resolved from its file; `paysandbox-mobile` is the tsconfig path of
 * packages/mobile; other bare specifiers are npm or built-in modules, in no box.
 */
export function importEdges(files: Record<string, string>, boxes: Map<string, string>): Map<string, string> {
  const boxOf = (path: string) => {
    let best: string | null = null;
    for (const [id, folder] of boxes) {
      if (path.startsWith(folder) && (!best || folder.length > boxes.get(best)!.length)) best = id;
    }
    return best;
  };
  const edges = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) {
    const from = boxOf(path);
    if (!from) continue;
    for (const specifier of importSpecifiers(text)) {
      let target: string;
      if (specifier.startsWith(".")) target = normalize(join(dirname(path), specifier));
      else if (specifier === "paysandbox-mobile") target = "packages/mobile/index.ts";
      else continue;
      const to = boxOf(target) ?? boxOf(`${target}/`);
      if (!to || to === from) continue;
      const edge = `${from} --> ${to}`;
      if (!edges.has(edge)) edges.set(edge, `${path} imports ${specifier}`);
    }
  }
  return edges;
}

function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of new Glob("{src,packages,scripts,bench}/**/*.{ts,mjs,js}").scanSync({ cwd: ROOT })) {
    if (path.includes("node_modules/") || path.includes("/dist/")) continue;
    files[path] = readFileSync(join(ROOT, path), "utf8");
  }
  return files;
}

/** The arrows with no import behind them, and the imports with no arrow ("from --> to: example"). */
export function compare(diagram: Diagram, edges: Map<string, string>): { unbacked: string[]; missing: string[] } {
  return {
    unbacked: [...diagram.arrows].filter((arrow) => !edges.has(arrow)).sort(),
    missing: [...edges]
      .filter(([edge]) => !diagram.arrows.has(edge))
      .map(([edge, example]) => `${edge}: ${example}`)
      .sort(),
  };
}

describe("the layer diagram of docs/architecture.md", () => {
  const diagram = readDiagram(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));

  test("has a box for every folder of src/ and packages/, and for scripts/ and bench/", () => {
    const folders = [
      ...readdirSync(join(ROOT, "src"), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `src/${entry.name}/`),
      ...readdirSync(join(ROOT, "packages"), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `packages/${entry.name}/`),
      "scripts/",
      "bench/",
    ].sort();
    expect([...diagram.boxes.values()].sort()).toEqual(folders);
  });

  test("its arrows are exactly the imports between its boxes", () => {
    const edges = importEdges(tree(), diagram.boxes);
    // The scan sees the tree: the HTTP layer calls the services.
    expect(edges.has("http --> services")).toBe(true);
    expect(compare(diagram, edges)).toEqual({ unbacked: [], missing: [] });
  });

  test("an arrow with no import, and an import with no arrow, are both reported", () => {
    const small = readDiagram(
      [
        "```mermaid",
        "flowchart TD",
        '  subgraph packages["packages/"]',
        '    rules["rules"]',
        "  end",
        '  http["src/http<br/>routes"]',
        '  services["src/services"]',
        '  lib["src/lib"]',
        "  http --> services & lib",
        "```",
      ].join("\n"),
    );
    expect(small.boxes.get("rules")).toBe("packages/rules/");
    const edges = importEdges(
      {
        "src/http/routes.ts": 'import { charge } from "../services/charge";\nimport "../../packages/rules/codes";\n',
        "src/services/charge.ts": 'export const charge = () => import("../lib/log");\n',
        "src/lib/log.ts": "import { join } from 'node:path';\n",
      },
      small.boxes,
    );
    expect(compare(small, edges)).toEqual({
      unbacked: ["http --> lib"],
      missing: [
        "http --> rules: src/http/routes.ts imports ../../packages/rules/codes",
        "services --> lib: src/services/charge.ts imports ../lib/log",
      ],
    });
  });

  test("an arrow naming no box is refused", () => {
    expect(() => readDiagram('```mermaid\n  http["src/http"]\n  http --> nowhere\n```')).toThrow(
      "names nowhere, which is no box",
    );
  });
});
