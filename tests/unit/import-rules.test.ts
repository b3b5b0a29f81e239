/**
 * The import rules of .dependency-cruiser.cjs (run over the tree by `npm test`) catch what they
 * are for: a cycle, and server code imported by the browser library or the mobile SDK. Each case
 * is a small tree in a temporary folder, cruised with the repository's own rule file.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-imports-"));
  try {
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "esnext" } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const result = spawnSync(
      join(ROOT, "node_modules", ".bin", "depcruise"),
      ["--config", join(ROOT, ".dependency-cruiser.cjs"), "--output-type", "err", ...Object.keys(files)],
      { cwd: dir, encoding: "utf8" },
    );
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("import rules", () => {
  test("a tree that keeps them passes", () => {
    const result = cruise({
      "payjs/rules.ts": "export const RULE = 1;\n",
      "mobile/sdk.ts": 'import { RULE } from "../payjs/rules";\nexport const SDK = RULE;\n',
      "api/route.ts": 'import { RULE } from "../payjs/rules";\nexport const ROUTE = RULE;\n',
    });
    expect(result.output).toContain("no dependency violations found");
    expect(result.status).toBe(0);
  });

  test("an import cycle fails", () => {
    const result = cruise({
      "lib/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
      "lib/b.ts": 'import { a } from "./a";\nexport const b = () => a;\n',
    });
    expect(result.output).toContain("no-circular");
    expect(result.status).not.toBe(0);
  });

  test("the browser library or the mobile SDK importing server code fails", () => {
    const result = cruise({
      "api/errors.ts": "export const CODE = 1;\n",
      "payjs/payjs.ts": 'import { CODE } from "../api/errors";\nexport const X = CODE;\n',
    });
    expect(result.output).toContain("client-packages-stand-alone: payjs/payjs.ts → api/errors.ts");
    expect(result.status).not.toBe(0);
  });
});
