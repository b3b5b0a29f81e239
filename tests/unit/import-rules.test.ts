/**
 * The import rules of .dependency-cruiser.cjs (run over the tree by `npm test`) catch what they
 * are for: a cycle, an import up a layer, SQL drivers outside src/storage, and server code imported
 * by the packages (the browser library, the mobile SDK, the verifier, the toolkit). Each case
 * is a small tree in a temporary folder, cruised with the repository's own rule file through
 * dependency-cruiser's own API (the engine and the `err` reporter the CLI uses; one process instead
 * of a CLI start, which loads TypeScript again, per case: ~25 ms a case instead of ~650 ms).
 */
import { describe, expect, test } from "bun:test";
import { cruise as depcruise, format } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const options = await extractDepcruiseOptions(join(ROOT, ".dependency-cruiser.cjs"));

async function cruise(files: Record<string, string>): Promise<{ status: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-imports-"));
  try {
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "esnext" } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    // As the CLI does from the case's folder: its tsconfig.json (options.tsConfig) for the parser.
    const tsConfig = extractTSConfig(join(dir, "tsconfig.json"));
    const result = await depcruise(Object.keys(files), { ...options, baseDir: dir }, {}, { tsConfig });
    if (typeof result.output === "string") throw new Error("dependency-cruiser answered a report, not a result");
    const report = await format(result.output, { outputType: "err" });
    return { status: report.exitCode, output: String(report.output) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("import rules", () => {
  test("a tree that keeps them passes", async () => {
    const result = await cruise({
      "packages/rules/codes.ts": "export const RULE = 1;\n",
      "packages/mobile/sdk.ts": 'import { RULE } from "../rules/codes";\nexport const SDK = RULE;\n',
      "src/lib/log.ts": "export const log = () => {};\n",
      "src/domain/money.ts": 'import { RULE } from "../../packages/rules/codes";\nexport const money = RULE;\n',
      "src/storage/charges.ts":
        'import { Database } from "bun:sqlite";\nimport { money } from "../domain/money";\nexport const save = (db: Database) => money;\n',
      "src/services/charge.ts": 'import { save } from "../storage/charges";\nexport const charge = save;\n',
      "src/http/charge.ts": 'import { charge } from "../services/charge";\nexport const route = charge;\n',
      "src/entry/server.ts": 'import { route } from "../http/charge";\nexport const serve = route;\n',
    });
    expect(result.output).toContain("no dependency violations found");
    expect(result.status).toBe(0);
  });

  test("an import cycle fails", async () => {
    const result = await cruise({
      "src/lib/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
      "src/lib/b.ts": 'import { a } from "./a";\nexport const b = () => a;\n',
    });
    expect(result.output).toContain("no-circular");
    expect(result.status).not.toBe(0);
  });

  test("an import up a layer fails", async () => {
    const result = await cruise({
      "src/http/deps.ts": "export const DEPS = 1;\n",
      "src/services/charge.ts": 'import { DEPS } from "../http/deps";\nexport const X = DEPS;\n',
      "src/domain/money.ts": 'import { X } from "../services/charge";\nexport const Y = X;\n',
    });
    expect(result.output).toContain("layer-services: src/services/charge.ts → src/http/deps.ts");
    expect(result.output).toContain("layer-domain: src/domain/money.ts → src/services/charge.ts");
    expect(result.status).not.toBe(0);
  });

  test("the http layer reaching past the services into storage fails", async () => {
    const result = await cruise({
      "src/storage/charges.ts": "export const save = 1;\n",
      "src/http/charge.ts": 'import { save } from "../storage/charges";\nexport const X = save;\n',
    });
    expect(result.output).toContain("layer-http: src/http/charge.ts → src/storage/charges.ts");
    expect(result.status).not.toBe(0);
  });

  test("a database driver outside src/storage fails", async () => {
    const result = await cruise({
      "src/services/charge.ts": 'import { Database } from "bun:sqlite";\nexport const open = () => new Database();\n',
    });
    expect(result.output).toContain("sql-only-in-storage: src/services/charge.ts → bun:sqlite");
    expect(result.status).not.toBe(0);
  });

  test("the browser library or the mobile SDK importing server code fails", async () => {
    const result = await cruise({
      "src/domain/errors.ts": "export const CODE = 1;\n",
      "packages/payjs/payjs.ts": 'import { CODE } from "../../src/domain/errors";\nexport const X = CODE;\n',
      "packages/rules/codes.ts": 'import { X } from "../payjs/payjs";\nexport const Y = X;\n',
    });
    expect(result.output).toContain("client-packages-stand-alone: packages/payjs/payjs.ts → src/domain/errors.ts");
    expect(result.output).toContain("rules-stand-alone: packages/rules/codes.ts → packages/payjs/payjs.ts");
    expect(result.status).not.toBe(0);
  });
});
