/**
 * The README's "Integrate in 5 minutes" runs as written: its HTML and JavaScript blocks make a
 * page on another origin that takes a payment in Chromium; the dashboard then shows the receipt
 * e-mail and the transaction, as step 4 says.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serve, setup, waitFor, type TestContext } from "../support/app";
import { collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";
import { docBlock } from "../docs/blocks";

describe.skipIf(!HAS_CHROMIUM)("README: integrate in 5 minutes", () => {
  let ctx: TestContext;
  let sandbox: { url: string; stop: () => Promise<void> };
  let shop: ReturnType<typeof Bun.serve>;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await setup();
    sandbox = serve(ctx);
    const markup = docBlock("integrate-card-form").code;
    const script = docBlock("integrate-pay").code;
    expect(markup).toContain("payjs.js");
    expect(script).toContain("payjs.pay(");
    const page = `<!doctype html><html><body>${markup.replaceAll("http://localhost:7290", sandbox.url)}<script>${script}</script></body></html>`;
    // The integrator's page, on an origin of its own.
    shop = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response(page, { headers: { "content-type": "text/html" } }),
    });
    browser = await launchBrowser();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await shop?.stop(true);
    await sandbox?.stop();
  });

  test("the snippet takes a payment and the dashboard shows its receipt and transaction", async () => {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    const logs: string[] = [];
    page.on("console", (message) => logs.push(message.text()));
    try {
      await page.goto(`http://localhost:${shop.port}/`);
      await page.frameLocator("#card-number iframe").locator("input").pressSequentially("4111111111111111");
      await page.frameLocator("#card-cvv iframe").locator("input").pressSequentially("123");
      await page.waitForSelector("#pay:not([disabled])", { timeout: 10_000 });
      await page.locator("#pay").click();
      const paid = await waitFor(() => logs.find((line) => line.startsWith("PAID ")), 15_000, "pay() to resolve");
      const transactionId = paid!.split(" ")[1]!;
      expect(errors).toEqual([]);

      await waitFor(() => ctx.deps.sqlite.query("SELECT 1 FROM emails").get(), 5000, "the receipt");
      await page.goto(`${sandbox.url}/dashboard/emails`);
      expect(await page.locator(".email .subject").innerText()).toContain("$10.50");
      await page.goto(`${sandbox.url}/dashboard/transactions/${transactionId}`);
      expect(await page.locator("h1").innerText()).toContain("$10.50");
    } finally {
      await page.close();
    }
  }, 40_000);
});
