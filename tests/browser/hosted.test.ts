/**
 * The hosted pages in headless Chromium: the link of a failure receipt opens the hosted payment
 * page, which pays the invoice with payjs.js itself (pay({ invoice_id })); the hosted invoice page
 * then shows PAID.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serve, setup, tokenize, type TestContext } from "../support/app";
import { collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";
import { ADA, expiryYear } from "../support/fixtures";

const YEAR = expiryYear(3);

describe.skipIf(!HAS_CHROMIUM)("hosted payment and invoice pages in Chromium", () => {
  let ctx: TestContext;
  let sandbox: ReturnType<typeof serve>;
  let browser: Browser;

  beforeAll(async () => {
    ctx = await setup();
    sandbox = serve(ctx);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  test("the failure e-mail's link opens the payment page, a good card pays the invoice, the invoice page shows PAID", async () => {
    // pay() with a card that declines: 402, the invoice ATTEMPTED, a failure receipt.
    const bad = await tokenize(ctx, { card_number: "4000000000009995" });
    const created = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      auth: false,
      body: {
        payment_method_id: bad.id,
        total: "42.50",
        ...ADA,
        meta: { reference: "E2E-1", lineItems: [{ item: "Difference engine", quantity: 1, price: 42.5 }] },
      },
    });
    const invoiceId = created.body.id;
    const declined = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoiceId}/pay`, {
      auth: false,
      body: { payment_method_id: bad.id },
    });
    expect(declined.status).toBe(402);
    const failure = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(failure.kind).toBe("receipt_failed");
    const link = /(http:\/\/\S+\/hosted\/pay\/[0-9a-f-]+)/.exec(failure.text)?.[1];
    expect(link).toBe(`${sandbox.url}/hosted/pay/${invoiceId}`);

    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(link!);
      await page.locator("#pay-button:enabled").waitFor({ timeout: 15_000 });
      expect(await page.locator("#invoice-status").textContent()).toBe("ATTEMPTED");
      expect(await page.locator("#last-attempt").textContent()).toContain("Insufficient funds.");
      // Type like a customer into the secure frames, which live in iframes.
      await page.frameLocator("#card-number iframe").locator("input").pressSequentially("4111111111111111");
      await page.frameLocator("#card-cvv iframe").locator("input").pressSequentially("123");
      await page.fill("#month", "12");
      await page.fill("#year", YEAR);
      await page.click("#pay-button");
      await page.waitForURL(`${sandbox.url}/hosted/invoice/${invoiceId}`, { timeout: 15_000 });
      expect(await page.locator("#invoice-status").textContent()).toBe("PAID");
      expect(await page.locator("#invoice-balance").textContent()).toBe("$0.00");
      expect(await page.textContent("body")).toContain("Difference engine");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }

    // The same invoice was paid (no second invoice), with the good card, and a success receipt went out.
    const invoice = (await ctx.call("GET", `/invoice/${invoiceId}`)).body;
    expect(invoice.status).toBe("PAID");
    expect(invoice.total_paid).toBe(42.5);
    expect(invoice.child_transactions.map((t: { success: boolean }) => t.success)).toEqual([true, false]);
    expect(invoice.child_transactions[0].last_four).toBe("1111");
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(1);
    const receipt = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(receipt.kind).toBe("receipt");
    expect(receipt.text).toContain(`${sandbox.url}/hosted/invoice/${invoiceId}`);
  }, 60_000);

  test("the payment page pays by bank account too, and a paid invoice's page offers no form", async () => {
    const pm = await tokenize(ctx, { card_number: "4012888888881881", email: "grace@example.com" });
    const created = await ctx.call("POST", "/invoice", {
      body: { customer_id: pm.customer_id, total: 15, meta: { memo: "Bank please" } },
    });
    const invoiceId = created.body.id;
    await ctx.call("POST", `/invoice/${invoiceId}/pay`, { body: { payment_method_id: pm.id } });
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(`${sandbox.url}/hosted/pay/${invoiceId}`);
      await page.locator("#pay-button:enabled").waitFor({ timeout: 15_000 });
      await page.check("input[name=method][value=bank]");
      await page.fill("#bank_routing", "021000021");
      await page.fill("#bank_account", "9876543210");
      await page.selectOption("#bank_type", "savings");
      await page.click("#pay-button");
      await page.waitForURL(`${sandbox.url}/hosted/invoice/${invoiceId}`, { timeout: 15_000 });
      expect(await page.locator("#invoice-status").textContent()).toBe("PAID");
      expect(await page.textContent("body")).toContain("Bank account (ACH)");
      await page.goto(`${sandbox.url}/hosted/pay/${invoiceId}`);
      expect(await page.locator("#pay-closed").textContent()).toContain("it has been paid");
      expect(await page.locator("#pay-form").count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
    const invoice = (await ctx.call("GET", `/invoice/${invoiceId}`)).body;
    expect(invoice.status).toBe("PAID");
    expect(invoice.child_transactions[0]).toMatchObject({ method: "bank", success: true, total: 15 });
  }, 60_000);

  test("the payment page shows a decline and the rules' messages without leaving the page", async () => {
    const pm = await tokenize(ctx, { card_number: "4012888888881881" });
    const created = await ctx.call("POST", "/invoice", { body: { customer_id: pm.customer_id, total: 9 } });
    const invoiceId = created.body.id;
    const invoicesBefore = (await ctx.call("GET", "/invoice")).body.total;
    const page = await browser.newPage();
    try {
      await page.goto(`${sandbox.url}/hosted/pay/${invoiceId}`);
      await page.locator("#pay-button:enabled").waitFor({ timeout: 15_000 });
      await page.frameLocator("#card-number iframe").locator("input").pressSequentially("4012888888881881");
      await page.frameLocator("#card-cvv iframe").locator("input").pressSequentially("123");
      await page.fill("#month", "13");
      await page.fill("#year", YEAR);
      await page.click("#pay-button");
      await page.locator("#pay-result[data-state=error]").waitFor({ timeout: 15_000 });
      expect(await page.locator("#pay-result").textContent()).toContain("The month must be two digits from 01 to 12.");
      await page.fill("#month", "12");
      await page.click("#pay-button");
      await page.waitForFunction(
        () => document.querySelector("#pay-result")?.textContent?.includes("declined"),
        undefined,
        { timeout: 15_000 },
      );
      expect(await page.locator("#pay-result").textContent()).toContain("Your card was declined.");
      expect(page.url()).toBe(`${sandbox.url}/hosted/pay/${invoiceId}`);
    } finally {
      await page.close();
    }
    const invoice = (await ctx.call("GET", `/invoice/${invoiceId}`)).body;
    expect(invoice).toMatchObject({ status: "ATTEMPTED", payment_attempt_message: "Your card was declined." });
    // The page paid this invoice: no other invoice was made.
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(invoicesBefore);
  }, 60_000);
});
