/**
 * A fresh `npm install` prints nothing a user must act on: every installed package with an install
 * script is allowed or denied in package.json's `allowScripts` (npm 11 warns about the others), and
 * no package the sandbox runs on refuses the Node the package says it supports. The packed tarball,
 * installed in a new project as docs/testing.md says, is checked by tests/testing/docs-examples.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runToExit } from "../support/process";

const ROOT = join(import.meta.dir, "..", "..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
};

describe("package.json's install settings", () => {
  test("allowScripts decides for every installed package with an install script", async () => {
    const listed = await runToExit(["npm", "install-scripts", "ls"], { cwd: ROOT, timeoutMs: 30_000 });
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim()).toBe("No packages with unreviewed install scripts.");
    // Bun links its binary in its install script; the others only report usage or fetch a binary
    // that their optional dependencies already hold, which no install here may download.
    expect(manifest.allowScripts).toEqual({
      bun: true,
      "@parcel/watcher": false,
      "@scarf/scarf": false,
      "@swc/core": false,
      "unrs-resolver": false,
    });
  }, 40_000);

  test("every runtime dependency runs on the Node the package declares", () => {
    expect(manifest.engines).toEqual({ node: ">=20" });
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev && entry.engines?.node)
      .filter(([, entry]) => !Bun.semver.satisfies("20.0.0", entry.engines!.node!))
      .map(([path, entry]) => `${path} (${entry.engines!.node})`);
    expect(refusing).toEqual([]);
  });
});
