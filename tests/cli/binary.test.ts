/**
 * The single executable: built once (npm run build's code) into a temporary directory, copied
 * to another one with no node_modules, started there on a free port. It creates its database,
 * prints the same banner as `npm start`, runs tokenize → charge → list, and serves a payjs.js
 * that works in Chromium (the dashboard's try-it page loads its card frames from the binary).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../../scripts/build";
import { BROWSER_FILES, buildBrowserFiles } from "../../src/http/assets/build";
import { banner } from "../../src/entry/server";
import { DEFAULT_CONFIG } from "../../src/lib/config";
import { CARD } from "../support/app";
import { runToExit, startServer, type Running } from "../support/process";
import { HAS_CHROMIUM, launchBrowser } from "../support/browser";
import pkg from "../../package.json";

const API_KEY = "sandbox_api_key";
const TOKEN = "sandbox_web_payments_token";

describe("the compiled binary", () => {
  let buildDir: string;
  let runDir: string;
  let binary: string;
  let server: Running | undefined;

  beforeAll(async () => {
    buildDir = mkdtempSync(join(tmpdir(), "paysandbox-build-"));
    runDir = mkdtempSync(join(tmpdir(), "paysandbox-run-"));
    const built = await buildBinary(join(buildDir, "paysandbox"));
    binary = join(runDir, "paysandbox");
    copyFileSync(built.outfile, binary);
    rmSync(buildDir, { recursive: true, force: true });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(runDir, { recursive: true, force: true });
  });

  test("prints its version and help without a checkout beside it", async () => {
    expect(existsSync(join(runDir, "node_modules"))).toBe(false);
    const version = await runToExit([binary, "--version"], { cwd: runDir });
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(`paysandbox ${pkg.version}`);
    const help = await runToExit([binary, "--help"], { cwd: runDir });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--reset");
  });

  test("creates its database on first run and prints the same banner as npm start", async () => {
    server = await startServer([binary, "--port", "0"], { cwd: runDir });
    const dbPath = join(runDir, ".paysandbox", "sandbox.sqlite");
    expect(existsSync(dbPath)).toBe(true);
    const expected = banner({ ...DEFAULT_CONFIG, port: 0 }, server.url, TOKEN, API_KEY, `${dbPath} (created)`);
    expect(server.stdout()).toBe(expected + "\n");
  });

  test("runs tokenize → charge → list", async () => {
    const url = server!.url;
    const tokenized = await fetch(`${url}/webpayment/${TOKEN}/tokenize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(CARD),
    });
    expect(tokenized.status).toBe(200);
    const pm = (await tokenized.json()) as { id: string; card_last_four: string };
    expect(pm.card_last_four).toBe("1111");
    const auth = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
    const charged = await fetch(`${url}/charge`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ payment_method_id: pm.id, total: 10.5 }),
    });
    expect(charged.status).toBe(200);
    const transaction = (await charged.json()) as { id: string; success: boolean; total: number };
    expect(transaction).toMatchObject({ success: true, total: 10.5 });
    const list = await fetch(`${url}/transaction`, { headers: auth });
    expect(list.status).toBe(200);
    const page = (await list.json()) as { total: number; data: { id: string }[] };
    expect(page.total).toBe(1);
    expect(page.data[0]!.id).toBe(transaction.id);
  });

  test("serves payjs.js, the dashboard and the favicon from its embedded sources", async () => {
    const url = server!.url;
    const payjs = await fetch(`${url}/payjs.js`);
    expect(payjs.status).toBe(200);
    expect(payjs.headers.get("content-type")).toContain("javascript");
    expect(await payjs.text()).toContain("PayJs");
    const script = await fetch(`${url}/dashboard/assets/dashboard.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain("EventSource");
    const home = await fetch(`${url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Sandbox Merchant");
    // Every browser file is the one built from the checkout's sources at build time, byte for byte.
    const built = await buildBrowserFiles();
    const servedAt = {
      "payjs.js": ["/payjs.js"],
      "frame.js": ["/payjs/frame.js"],
      "payjs.d.ts": ["/payjs.d.ts"],
      "frame.html": ["/payjs/frames/number.html", "/payjs/frames/cvv.html"],
      "dashboard.js": ["/dashboard/assets/dashboard.js"],
      "try.js": ["/dashboard/assets/try.js"],
    } satisfies Record<(typeof BROWSER_FILES)[number], string[]>;
    expect(Object.keys(servedAt).sort()).toEqual([...BROWSER_FILES].sort());
    for (const [name, paths] of Object.entries(servedAt)) {
      for (const path of paths) {
        const served = await fetch(`${url}${path}`);
        expect({ path, status: served.status }).toEqual({ path, status: 200 });
        expect({ path, text: await served.text() }).toEqual({ path, text: built[name as keyof typeof servedAt] });
      }
    }
    // The icon file of the checkout, embedded as is.
    const icon = await fetch(`${url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/x-icon");
    const served = new Uint8Array(await icon.arrayBuffer());
    expect(served).toEqual(await Bun.file(join(import.meta.dir, "../../src/http/routes/favicon.ico")).bytes());
  });

  test.skipIf(!HAS_CHROMIUM)(
    "its payjs.js shows a working card form and pays in Chromium",
    async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        await page.goto(`${server!.url}/dashboard/try`);
        await page.waitForSelector("#try-it[data-ready=true]", { timeout: 15_000 });
        await page.getByRole("button", { name: "Fill approving Visa" }).click();
        await page.waitForSelector("#try-pay:not([disabled])");
        await page.locator("#try-pay").click();
        const result = page.locator("#try-result [data-kind=ok]");
        await result.waitFor({ timeout: 15_000 });
        expect(await result.innerText()).toContain("is PAID");
      } finally {
        await browser.close();
      }
    },
    40_000,
  );

  test("stops cleanly on SIGTERM", async () => {
    const running = server!;
    server = undefined;
    expect(await running.stop()).toBe(0);
  });
});
