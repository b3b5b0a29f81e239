/**
 * Every example of docs/testing.md, run as printed by its real runner (bun test, Vitest, Jest,
 * node:test, Playwright Test; installed here as devDependencies) in a project that installs this
 * package from its `npm pack` tarball. Each test file runs as two copies at once; the examples
 * assert that their merchant sees exactly its own transactions, so they fail if two files ever
 * share data. The node:test example runs on the machine's Node 20 with no Bun on the PATH.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Sandbox } from "../../packages/testing/index";
import { startSandbox } from "../../packages/testing/src/index";
import { SERVER_BUNDLE_FILE, serverFiles } from "../../packages/testing/src/server-bundle";
import { CHROMIUM_PATH, HAS_CHROMIUM } from "../support/browser";
import { docBlock } from "../docs/blocks";
import { runInNamespace } from "../docs/shell";
import { examplesOf, lockfileFor, makeProject, packTarball, readExamples, removeProject, ROOT } from "./docs";

const RUN_TIMEOUT_MS = 180_000;
const projects: string[] = [];
let tarball: string;
/** The sandbox the attached runs use, to count what they did in it afterwards. */
let sandbox: Sandbox;

interface Run {
  code: number;
  output: string;
}

/**
 * What `bun test --parallel` sets in its workers. An integrator's CI shell has none of them, and
 * JEST_WORKER_ID makes Playwright Test refuse to run ("excluded from Jest test runs").
 */
const RUNNER_MARKERS = new Set(["JEST_WORKER_ID", "BUN_TEST_WORKER_ID"]);

/** The environment without PAYSANDBOX_* settings of the developer's shell, nor bun test's worker ids. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", FORCE_COLOR: "0" };
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("PAYSANDBOX_") && !RUNNER_MARKERS.has(key) && value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

async function run(command: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  const child = Bun.spawn(command, { cwd, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code, output: `$ ${command.join(" ")}\n${stdout}\n${stderr}` };
}

function project(runners: string[], packageJson: object = {}): string {
  const files = runners.flatMap((runner) => examplesOf(runner));
  const dir = makeProject(tarball, files, { name: "my-shop", private: true, type: "module", ...packageJson });
  projects.push(dir);
  return dir;
}

/** Merchants the sandbox has, by id → transaction count. */
async function merchantsOf(url: string): Promise<Map<string, number>> {
  const list = (await (await fetch(`${url}/_sandbox/merchants`)).json()) as Array<{ id: string; api_key: string }>;
  const counts = new Map<string, number>();
  for (const merchant of list) {
    const page = await fetch(`${url}/transaction?per_page=1`, {
      headers: { authorization: `Bearer ${merchant.api_key}` },
    });
    counts.set(merchant.id, ((await page.json()) as { total: number }).total);
  }
  return counts;
}

beforeAll(async () => {
  tarball = packTarball(mkdtempSync(join(tmpdir(), "paysandbox-pack-")));
  sandbox = await startSandbox({ url: null });
}, 120_000);

afterAll(async () => {
  await sandbox?.stop();
  for (const dir of projects) removeProject(dir);
});

describe("docs/testing.md", () => {
  test("has an example for every runner and the CI workflow, and shows the workflow file as it is", () => {
    const runners = new Set(readExamples().map((example) => example.runner));
    expect([...runners].sort()).toEqual([
      "bun",
      "ci",
      "jest",
      "node",
      "playwright",
      "playwright_state",
      "vitest",
      "vitest_state",
    ]);
    const [workflow] = examplesOf("ci");
    expect(workflow!.code).toBe(readFileSync(join(ROOT, "docs", "examples", "github-actions.yml"), "utf8"));
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("(docs/testing.md)");
  });

  test(
    "the install commands, as printed, install the tarball in a new project offline with no warning; the shared-server block runs its tests",
    async () => {
      // The tarball in a checkout beside the project, as the text has it.
      const home = mkdtempSync(join(tmpdir(), "paysandbox-install-"));
      projects.push(home);
      mkdirSync(join(home, "paysandbox"));
      copyFileSync(tarball, join(home, "paysandbox", "paysandbox-0.1.0.tgz"));
      const shop = join(home, "my-shop");
      mkdirSync(join(shop, "test"), { recursive: true });
      const manifest = { name: "my-shop", private: true, type: "module", scripts: { test: "node --test" } };
      writeFileSync(join(shop, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
      writeFileSync(join(shop, "test", "checkout.test.mjs"), examplesOf("node")[0]!.code);
      // The registry is not reachable from a test: the lockfile names what it would resolve, and
      // npm takes it from its cache (the namespace has no network at all).
      const lock = lockfileFor("file:../paysandbox/paysandbox-0.1.0.tgz", manifest);
      writeFileSync(join(shop, "package-lock.json"), JSON.stringify(lock, null, 2));

      const install = await runInNamespace([docBlock("testing-install").code], {
        cwd: shop,
        env: { npm_config_offline: "true", npm_config_fund: "false", npm_config_audit: "false" },
        timeoutMs: 120_000,
      });
      const [installed] = install.runs;
      expect(installed!.code, install.log).toBe(0);
      expect(installed!.output).toMatch(/added \d+ packages/);
      const warnings = `${install.log}`.split("\n").filter((line) => /warn|deprecat|ERR!/i.test(line));
      expect(warnings).toEqual([]);
      const written = JSON.parse(readFileSync(join(shop, "package.json"), "utf8"));
      expect(written.devDependencies).toEqual({ paysandbox: "file:../paysandbox/paysandbox-0.1.0.tgz" });
      expect(written.allowScripts).toEqual({ bun: true, "@scarf/scarf": false });

      const shared = await runInNamespace([docBlock("testing-shared-server").code], {
        cwd: shop,
        env: cleanEnv({ PATH: process.env.PATH! }),
        timeoutMs: 120_000,
      });
      const [tested] = shared.runs;
      expect(tested!.output).toMatch(/# pass 1\b/);
      expect(tested!.output).toMatch(/# fail 0\b/);
      expect(tested!.code, shared.log).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );

  test("the package's tarball holds the built toolkit and the sandbox it starts, and none of the repository's tools", () => {
    const listing = Bun.spawnSync(["tar", "-tzf", tarball]).stdout.toString().split("\n");
    for (const file of [
      "packages/testing/dist/index.js",
      "packages/testing/dist/index.cjs",
      "packages/testing/dist/index.d.ts",
      "packages/testing/dist/server/server.js",
      "packages/testing/dist/server/server.js.jsc",
      "packages/testing/dist/server/manifest.json",
      "src/entry/server.ts",
      "src/entry/app.ts",
    ]) {
      expect(listing).toContain(`package/${file}`);
    }
    // The prebuilt server counts as fresh as npm unpacks it (every file dated 1985): the sandbox
    // an installed toolkit starts is the bundle, not the sources.
    const unpacked = mkdtempSync(join(tmpdir(), "paysandbox-unpacked-"));
    try {
      execFileSync("tar", ["-xzf", tarball, "-C", unpacked]);
      const root = join(unpacked, "package");
      const bundleDir = join(root, "packages", "testing", "dist", "server");
      expect(serverFiles(root, bundleDir, []).script).toBe(join(bundleDir, SERVER_BUNDLE_FILE));
    } finally {
      rmSync(unpacked, { recursive: true, force: true });
    }
    for (const folder of ["tests/", "bench/", "scripts/", ".ci/"]) {
      expect(listing.filter((file) => file.startsWith(`package/${folder}`))).toEqual([]);
    }
    for (const file of [".prettierrc.json", ".dependency-cruiser.cjs", "redocly.yaml", "bunfig.toml"]) {
      expect(listing).not.toContain(`package/${file}`);
    }
    const manifest = JSON.parse(Bun.spawnSync(["tar", "-xzOf", tarball, "package/package.json"]).stdout.toString());
    // npm flags a tarball dependency's prepare script as an install script: the build is prepack.
    expect(Object.keys(manifest.scripts).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([]);
    expect(manifest.engines).toEqual({ node: ">=20" });
  }, 60_000);

  test(
    "bun test: two files in one process share one sandbox, each with its own merchant",
    async () => {
      const dir = project(["bun"]);
      const result = await run([process.execPath, "test"], dir, cleanEnv());
      expect(result.output).toMatch(/ 4 pass\b/);
      expect(result.output).toMatch(/ 0 fail\b/);
      expect(result.code, result.output).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );

  test(
    "node:test on the machine's Node 20 with no Bun on the PATH: the sandbox runs on the package's own Bun",
    async () => {
      const dir = project(["node"]);
      const env = cleanEnv({ PATH: "/usr/bin:/bin" });
      const which = Bun.spawnSync(["/bin/sh", "-c", "command -v bun || echo none"], { env });
      expect(which.stdout.toString().trim()).toBe("none");
      const version = Bun.spawnSync(["/usr/bin/node", "--version"]).stdout.toString();
      expect(version).toMatch(/^v2\d\./);
      const result = await run(["/usr/bin/node", "--test", "--test-concurrency=2"], dir, env);
      expect(result.output).toMatch(/# pass 2\b/);
      expect(result.output).toMatch(/# fail 0\b/);
      expect(result.code, result.output).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );

  test(
    "Jest: the global setup's sandbox serves both files at once; each sees only its own transactions",
    async () => {
      const before = await merchantsOf(sandbox.url);
      const dir = project(["jest"]);
      const result = await run(["npx", "jest", "--maxWorkers=2"], dir, cleanEnv({ PAYSANDBOX_URL: sandbox.url }));
      expect(result.output).toMatch(/Tests:\s+2 passed, 2 total/);
      expect(result.code, result.output).toBe(0);
      const after = await merchantsOf(sandbox.url);
      const added = [...after].filter(([id]) => !before.has(id));
      // One merchant per file, each with its one sale (the refund is its child), in the one sandbox.
      expect(added.map(([, transactions]) => transactions)).toEqual([1, 1]);
    },
    RUN_TIMEOUT_MS,
  );

  test.skipIf(!HAS_CHROMIUM)(
    "the CI workflow's steps run the Vitest and Playwright examples (npm test), two files each at once",
    async () => {
      const workflow = Bun.YAML.parse(examplesOf("ci")[0]!.code) as {
        on: Record<string, unknown>;
        jobs: Record<
          string,
          { "runs-on": string; steps: Array<{ run?: string; uses?: string; env?: Record<string, string> }> }
        >;
      };
      expect(Object.keys(workflow.on)).toEqual(["push", "pull_request"]);
      const { steps } = workflow.jobs.test!;
      expect(steps.map((step) => step.uses ?? step.run)).toEqual([
        "actions/checkout@v4",
        "actions/setup-node@v4",
        "npm ci",
        "npx playwright install --with-deps chromium",
        "npm test",
        "actions/upload-artifact@v4",
      ]);
      const before = await merchantsOf(sandbox.url);
      const dir = project(["vitest", "playwright"], {
        scripts: { test: "vitest run && playwright test" },
        devDependencies: { paysandbox: "^0.1.0", vitest: "^4.1.0", "@playwright/test": "^1.65.0" },
      });
      // `npm ci` is what makeProject() did offline; Playwright's browser is Debian's Chromium here.
      for (const step of steps) {
        if (!step.run || step.run === "npm ci" || step.run.startsWith("npx playwright install")) continue;
        const result = await run(
          ["/bin/sh", "-c", step.run],
          dir,
          cleanEnv({ ...step.env, CHROMIUM_PATH, PAYSANDBOX_URL: sandbox.url }),
        );
        expect(result.output).toMatch(/Test Files\s+2 passed \(2\)/);
        expect(result.output).toMatch(/\b4 passed\b/);
        expect(result.code, result.output).toBe(0);
      }
      const after = await merchantsOf(sandbox.url);
      const added = [...after].filter(([id]) => !before.has(id)).map(([, transactions]) => transactions);
      // Vitest: a merchant per file (approved + declined + bank); Playwright runs the tests of a
      // file in both workers (fullyParallel), each worker with its merchant and its one payment.
      expect(added.sort()).toEqual([1, 1, 1, 1, 3, 3]);
    },
    RUN_TIMEOUT_MS,
  );

  test.skipIf(!HAS_CHROMIUM)(
    "the fixtures-and-snapshots examples: every test starts from the snapshot, in Vitest and in Playwright Test",
    async () => {
      const dir = project(["vitest", "vitest_state", "playwright", "playwright_state"], {
        devDependencies: { paysandbox: "^0.1.0", vitest: "^4.1.0", "@playwright/test": "^1.65.0" },
      });
      const env = cleanEnv({ CHROMIUM_PATH, PAYSANDBOX_URL: sandbox.url });
      const vitest = await run(["npx", "vitest", "run", "test/refunds"], dir, env);
      expect(vitest.output).toMatch(/Tests\s+4 passed \(4\)/); // two copies of the file at once
      expect(vitest.code, vitest.output).toBe(0);
      const playwright = await run(["npx", "playwright", "test", "e2e/refunds"], dir, env);
      expect(playwright.output).toMatch(/\b4 passed\b/);
      expect(playwright.code, playwright.output).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );
});
