/**
 * "Dependency-free, only fetch": the SDK bundles for the browser without a Node or Bun import,
 * and the bundle tokenizes against a real sandbox from plain Node and from a page of another
 * origin in headless Chromium (so the CORS answers are real too).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { MESSAGES } from "../../packages/rules/messages";
import { HAS_CHROMIUM, collectPageErrors, launchBrowser } from "../support/browser";
import { serve, setup, type TestContext } from "../support/app";

const ENTRY = join(import.meta.dir, "..", "..", "packages", "mobile", "index.ts");
let ctx: TestContext;
let sandbox: ReturnType<typeof serve>;
let bundle: string;
let workDir: string;

beforeAll(async () => {
  ctx = await setup();
  sandbox = serve(ctx);
  const built = await Bun.build({ entrypoints: [ENTRY], target: "browser", format: "esm" });
  if (!built.success) throw new Error(built.logs.map(String).join("\n"));
  bundle = await built.outputs[0]!.text();
  workDir = mkdtempSync(join(tmpdir(), "paysandbox-mobile-"));
});

afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await sandbox.stop();
});

/** The same few lines an app runs, as ES module source importing the bundle from `from`. */
function appScript(from: string, baseUrl: string): string {
  return `
    import { CreditCard, PaymentApi, PaymentConfiguration } from ${JSON.stringify(from)};
    PaymentConfiguration.shared.webPaymentsToken = ${JSON.stringify(ctx.token)};
    PaymentConfiguration.shared.baseUrl = ${JSON.stringify(baseUrl)};
    const api = new PaymentApi();
    const good = await api.tokenize(CreditCard.testCreditCard());
    const bad = await api.tokenize(CreditCard.failingTestCreditCard());
    export const result = { good, bad };
  `;
}

test("the SDK bundles for the browser with no Node, Bun or package import", () => {
  expect(bundle.length).toBeGreaterThan(1000);
  expect(bundle).not.toMatch(/from\s*["'](node:|bun:|bun["'])/);
  expect(bundle).not.toContain("require(");
  expect(bundle).toContain("/webpayment/");
});

test("the bundle tokenizes from plain Node (only its global fetch)", async () => {
  writeFileSync(join(workDir, "sdk.mjs"), bundle);
  writeFileSync(
    join(workDir, "app.mjs"),
    appScript("./sdk.mjs", sandbox.url) + "\nconsole.log(JSON.stringify(result));\n",
  );
  const child = Bun.spawn(["node", join(workDir, "app.mjs")], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill(), 20_000);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const { good, bad } = JSON.parse(stdout);
  expect(good.ok).toBe(true);
  expect(good.paymentMethod.card_last_four).toBe("1111");
  expect(bad.error.code).toBe("validation_error");
});

describe.skipIf(!HAS_CHROMIUM)("in a browser", () => {
  let browser: Browser;
  let page: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    browser = await launchBrowser();
    // The app's page on its own origin: the sandbox is cross-origin to it.
    page = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        if (path === "/sdk.js") return new Response(bundle, { headers: { "content-type": "text/javascript" } });
        if (path === "/app.js") {
          const source = appScript("/sdk.js", sandbox.url) + "\nwindow.tokenized = result;\n";
          return new Response(source, { headers: { "content-type": "text/javascript" } });
        }
        return new Response('<!doctype html><title>app</title><script type="module" src="/app.js"></script>', {
          headers: { "content-type": "text/html" },
        });
      },
    });
  });

  afterAll(async () => {
    await browser?.close();
    await page?.stop(true);
  });

  test("a page of another origin tokenizes with the bundle through the sandbox's CORS", async () => {
    const tab = await browser.newPage();
    const errors = collectPageErrors(tab);
    const seen: string[] = [];
    tab.on("request", (request) => seen.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await tab.goto(`http://127.0.0.1:${page.port}/`);
    await tab.waitForFunction(() => (window as any).tokenized !== undefined, undefined, { timeout: 15_000 });
    const result = await tab.evaluate(() => (window as any).tokenized);
    expect(errors).toEqual([]);
    expect(result.good.ok).toBe(true);
    expect(result.good.paymentMethod.card_type).toBe("visa");
    expect(result.bad.error.fields).toEqual({ cardNumber: [MESSAGES.cardNumberInvalid] });
    expect(seen).toContain(`POST /webpayment/${ctx.token}/tokenize`);
    await tab.close();
  });
});
