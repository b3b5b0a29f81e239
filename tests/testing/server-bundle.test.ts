/**
 * Which server the toolkit starts: the prebuilt bundle (testing/dist/server) only while every
 * source it was built from is unchanged, else the sources. On a made-up package root, so each
 * case controls the files, their sizes and their modification times.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  SERVER_BUNDLE_FILE,
  SERVER_MANIFEST_FILE,
  SERVER_TEMPLATE_FILE,
  serverFiles,
  sha1Of,
  type ServerManifest,
} from "../../packages/testing/src/server-bundle";

let root: string;
let bundleDir: string;
const BUILT_AT = Date.parse("2026-03-01T12:00:00Z");
const before = new Date(BUILT_AT - 60_000);
const after = new Date(BUILT_AT + 60_000);
const source = () => join(root, "src", "entry", "server.ts");
const bundle = () => join(bundleDir, SERVER_BUNDLE_FILE);

function write(path: string, text: string, time: Date): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
  utimesSync(join(root, path), time, time);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "paysandbox-bundle-"));
  bundleDir = join(root, "packages", "testing", "dist", "server");
  const files = { "src/entry/server.ts": "main();\n", "src/lib/money.ts": "export const cents = 100;\n" };
  const manifest: ServerManifest = { builtAtMs: BUILT_AT, files: {} };
  for (const [path, text] of Object.entries(files)) {
    write(path, text, before);
    manifest.files[path] = { size: Buffer.byteLength(text), sha1: sha1Of(Buffer.from(text)) };
  }
  mkdirSync(bundleDir, { recursive: true });
  writeFileSync(bundle(), "// bundle\n");
  writeFileSync(join(bundleDir, SERVER_MANIFEST_FILE), JSON.stringify(manifest));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("serverFiles()", () => {
  test("runs the bundle while its sources are as they were built, on its template database when it has one", () => {
    expect(serverFiles(root, bundleDir, [])).toEqual({ script: bundle() });
    writeFileSync(join(bundleDir, SERVER_TEMPLATE_FILE), "");
    expect(serverFiles(root, bundleDir, [])).toEqual({
      script: bundle(),
      template: join(bundleDir, SERVER_TEMPLATE_FILE),
    });
  });

  test("a source file touched after the build but unchanged (a git checkout) keeps the bundle", () => {
    write("src/lib/money.ts", "export const cents = 100;\n", after);
    expect(serverFiles(root, bundleDir, []).script).toBe(bundle());
  });

  test("a source edited after the build, even to the same size, runs the sources on a new database", () => {
    writeFileSync(join(bundleDir, SERVER_TEMPLATE_FILE), "");
    write("src/lib/money.ts", "export const cents = 200;\n", after);
    expect(serverFiles(root, bundleDir, [])).toEqual({ script: source() });
  });

  test("a source of another size runs the sources, whatever its date", () => {
    write("src/lib/money.ts", "export const cents = 1000;\n", before);
    expect(serverFiles(root, bundleDir, []).script).toBe(source());
  });

  test("a source removed since the build runs the sources", () => {
    rmSync(join(root, "src", "lib", "money.ts"));
    expect(serverFiles(root, bundleDir, []).script).toBe(source());
  });

  test("no bundle, no manifest or no bundle folder runs the sources", () => {
    expect(serverFiles(root, undefined, []).script).toBe(source());
    rmSync(join(bundleDir, SERVER_MANIFEST_FILE));
    expect(serverFiles(root, bundleDir, []).script).toBe(source());
  });

  test("a manifest without its bundle runs the sources", () => {
    rmSync(bundle());
    expect(serverFiles(root, bundleDir, []).script).toBe(source());
  });

  test("--dev (browser files rebuilt on edit) runs the sources", () => {
    expect(serverFiles(root, bundleDir, ["--dev"]).script).toBe(source());
  });
});
