/**
 * The toolkit's declarations are written in parts (packages/testing/index.d.ts and types/) and shipped
 * as one file: scripts/build-testing.ts joins them. The joined file must stand alone, as ESM and as
 * CommonJS declarations, and carry every part.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { joinedDeclarations } from "../../scripts/build-testing";

const ROOT = join(import.meta.dir, "..", "..");

describe("paysandbox/testing's shipped declarations", () => {
  test("join every part into one file with no import left", () => {
    const joined = joinedDeclarations(join(ROOT, "packages", "testing"));
    expect(joined).not.toContain("./types/");
    expect(joined).not.toMatch(/^import /m);
    for (const declaration of [
      "export declare function startSandbox",
      "export declare const cards",
      "export declare const bank",
      "export interface Outcomes",
      "export interface Snapshot",
      "export type FixtureStep",
    ]) {
      expect(joined).toContain(declaration);
    }
  });

  test("type-check an integrator's code as index.d.ts and as index.d.cts, and refuse a wrong one", () => {
    const dir = mkdtempSync(join(tmpdir(), "testing-dts-"));
    const joined = joinedDeclarations(join(ROOT, "packages", "testing"));
    writeFileSync(join(dir, "index.d.ts"), joined);
    writeFileSync(join(dir, "index.d.cts"), joined);
    const use = (from: string) => `import { cards, startSandbox, type Snapshot, type Outcome } from "${from}";
const outcome: Outcome = cards.visa.insufficientFunds.outcome;
export async function run(): Promise<Snapshot> {
  const merchant = await (await startSandbox()).merchant();
  await merchant.outcomes.next("pm", [outcome, "approve"]);
  return merchant.snapshot("ready");
}
`;
    writeFileSync(join(dir, "good.mts"), use("./index.js"));
    writeFileSync(join(dir, "good.cts"), use("./index.cjs"));
    writeFileSync(
      join(dir, "bad.mts"),
      `import { cards } from "./index.js";\nexport const n: number = cards.visa.approve.number;\n`,
    );
    const tsc = (...files: string[]) =>
      Bun.spawnSync(
        [
          join(ROOT, "node_modules/.bin/tsc"),
          "--ignoreConfig",
          "--noEmit",
          "--strict",
          "--module",
          "nodenext",
          ...files,
        ],
        { cwd: dir },
      );
    expect(tsc("good.mts", "good.cts").stdout.toString()).toBe("");
    const bad = tsc("bad.mts");
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stdout.toString()).toContain("Type 'string' is not assignable to type 'number'");
  }, 60_000);
});
