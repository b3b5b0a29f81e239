/**
 * fillCard() in real Chromium (playwright-core's Page, the type @playwright/test hands out): it
 * types into the payjs secure frames of the example checkout page from the page's side only, and
 * the payment goes through with the card it typed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { CheckoutPage, Merchant, Sandbox } from "../../packages/testing/index";
import { cards, fillCard, startSandbox } from "../../packages/testing/src/index";
import { collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";

describe.skipIf(!HAS_CHROMIUM)("fillCard()", () => {
  let browser: Browser;
  let sandbox: Sandbox;
  let merchant: Merchant;
  let checkout: CheckoutPage;

  beforeAll(async () => {
    [browser, sandbox] = await Promise.all([launchBrowser(), startSandbox({ url: null })]);
    merchant = await sandbox.merchant();
    checkout = await sandbox.checkoutPage({ merchant });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  async function open(): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    await page.goto(checkout.url);
    return { page, errors };
  }

  test("types an Amex with its 4-digit CVV into the frames; the form completes and the payment is made with it", async () => {
    const { page, errors } = await open();
    try {
      await fillCard(page, cards.amex.approve);
      await page.getByRole("button", { name: "Pay by card" }).click({ timeout: 15_000 });
      await page.getByRole("status").filter({ hasText: "is PAID" }).waitFor({ timeout: 15_000 });
      const list = await fetch(`${sandbox.url}/transaction`, {
        headers: { authorization: `Bearer ${merchant.apiKey}` },
      });
      const { data } = (await list.json()) as { data: Array<{ last_four: string; total: number }> };
      expect(data.map((transaction) => transaction.last_four)).toEqual(["0005"]);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  test("with a number typed as a person would (spaces and all) and custom containers", async () => {
    const page = await browser.newPage();
    try {
      // A page of its own whose containers have other ids.
      const html = `<!doctype html><script src="${sandbox.url}/payjs.js"></script>
        <div style="height:900px">scroll down</div>
        <div id="pan" style="height:40px"></div><div id="code" style="height:40px"></div><p id="state"></p>
        <script>
          const payjs = new PayJs(${JSON.stringify(merchant.webPaymentsToken)}, { number: { id: "pan" }, cvv: { id: "code" } });
          payjs.showCardForm();
          payjs.on("card_form_complete", (m) => (document.getElementById("state").textContent = "complete " + m.card_type));
        </script>`;
      const shop = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () => new Response(html, { headers: { "content-type": "text/html" } }),
      });
      await page.goto(`http://127.0.0.1:${shop.port}/`);
      await fillCard(page, { number: "5555 5555 5555 4444", cvv: "321" }, { number: "#pan", cvv: "#code" });
      await page.getByText("complete mastercard").waitFor({ timeout: 15_000 });
      void shop.stop(true);
    } finally {
      await page.close();
    }
  }, 60_000);

  test("a page without the frames fails fast with the container it looked for", async () => {
    const page = await browser.newPage();
    try {
      await page.setContent("<p>no card form here</p>");
      const error = await fillCard(page, cards.visa.approve, { timeoutMs: 300 }).catch((e: Error) => e);
      expect(String(error)).toContain("#card-number iframe");
      expect(fillCard(undefined as unknown as Page, cards.visa.approve)).rejects.toThrow("expects a Playwright Page");
    } finally {
      await page.close();
    }
  });
});
