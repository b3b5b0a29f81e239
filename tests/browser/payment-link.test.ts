/**
 * A payment link's hosted page in headless Chromium (issue 30): a customer opens the link's
 * tinyurl, types the card into the sandbox's card frames and pays; the sandbox makes the invoice
 * and its charge, relays the receipt to a real SMTP server and counts the sale. A single-use link
 * then refuses a second payment, and an expired one shows why it cannot be paid. A tokenizeOnly
 * link's page saves the card from the frames and charges nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serve, setup, waitFor, type TestContext } from "../support/app";
import { collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";
import { ADA, expiryYear } from "../support/fixtures";
import { startSmtpReceiver, type SmtpReceiver } from "../support/smtp-receiver";

describe.skipIf(!HAS_CHROMIUM)("a payment link's page in Chromium", () => {
  let ctx: TestContext;
  let sandbox: ReturnType<typeof serve>;
  let browser: Browser;
  let smtp: SmtpReceiver;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    ctx = await setup({ config: { smtpUrl: smtp.url } });
    sandbox = serve(ctx);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
    await smtp?.close();
  });

  test("the customer pays a single-use link with the card frames; receipt relayed, sale counted, link used up", async () => {
    const mat = (await ctx.call("POST", "/item", { body: { item: "Yoga mat", details: "cork", price: 30 } })).body;
    const made = await ctx.call("POST", "/query/payment-links", {
      body: {
        common_name: "Mat and class",
        max_uses: 1,
        link_meta: {
          lineItems: [{ id: mat.id, quantity: 2 }],
          tax: 4.8,
          memo: "See you Monday",
          buttonText: "Buy now",
        },
      },
    });
    expect(made.status).toBe(201);
    const link = made.body.body;
    expect(link.tinyurl).toBe(`${sandbox.url}/hosted/link/${link.id}`);

    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(link.tinyurl);
      await page.locator("#pay-button:enabled").waitFor({ timeout: 15_000 });
      expect(await page.locator("#link-amount").textContent()).toBe("$64.80");
      expect(await page.locator("#pay-button").textContent()).toContain("Buy now");
      expect(await page.textContent("body")).toContain("Yoga mat");
      for (const [field, value] of Object.entries(ADA)) await page.fill(`#${field}`, value);
      await page.frameLocator("#card-number iframe").locator("input").pressSequentially("4111111111111111");
      await page.frameLocator("#card-cvv iframe").locator("input").pressSequentially("123");
      await page.fill("#month", "12");
      await page.fill("#year", expiryYear(3));
      await page.click("#pay-button");
      await page.waitForURL(/\/hosted\/invoice\/[0-9a-f-]+$/, { timeout: 15_000 });
      expect(await page.locator("#invoice-status").textContent()).toBe("PAID");
      expect(await page.textContent("body")).toContain("Yoga mat");
      expect(errors).toEqual([]);
      // The page never held the card number: it went from the frame to the sandbox.
      expect(await page.content()).not.toContain("4111111111111111");
    } finally {
      await page.close();
    }

    const invoices = (await ctx.call("GET", "/invoice")).body.data;
    expect(invoices).toHaveLength(1);
    const invoice = invoices[0];
    expect(invoice).toMatchObject({ status: "PAID", total: 64.8, is_webpayment: true });
    expect(invoice.meta.payment_link_id).toBe(link.id);
    expect(invoice.child_transactions[0]).toMatchObject({ success: true, total: 64.8, last_four: "1111" });
    await ctx.deps.mailer.idle();
    const relayed = (await waitFor(() => smtp.received.find((mail) => mail.parsed.text?.includes(invoice.id))))!;
    expect(relayed.envelopeTo).toEqual([ADA.email]);
    expect(relayed.parsed.subject).toContain("$64.80");
    expect(relayed.parsed.text).not.toContain("4111111111111111");
    const after = (await ctx.call("GET", `/query/payment-links/${link.id}`)).body.data;
    expect(after).toMatchObject({ uses: 1, total_sales: 64.8, total_transactions: 1, is_active: false });

    // Used up: the page shows why and has no form; the pay route refuses.
    const again = await browser.newPage();
    try {
      await again.goto(link.tinyurl);
      expect(await again.locator("#link-closed").textContent()).toContain("used as many times");
      expect(await again.locator("#pay-form").count()).toBe(0);
    } finally {
      await again.close();
    }
  }, 90_000);

  test("a tokenizeOnly link's page saves the card from the frames and charges nothing", async () => {
    const made = await ctx.call("POST", "/query/payment-links", {
      body: { common_name: "Card on file", link_meta: { tokenizeOnly: true, buttonText: "Save my card" } },
    });
    expect(made.status).toBe(201);
    const link = made.body.body;
    const invoicesBefore = (await ctx.call("GET", "/invoice")).body.total;
    const transactionsBefore = (await ctx.call("GET", "/transaction")).body.total;
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(link.tinyurl);
      await page.locator("#pay-button:enabled").waitFor({ timeout: 15_000 });
      expect(await page.locator("#link-amount").count()).toBe(0);
      expect(await page.locator("#link-purpose").textContent()).toContain("Nothing is charged now.");
      expect(await page.locator("#pay-button").textContent()).toContain("Save my card");
      for (const [field, value] of Object.entries(ADA)) await page.fill(`#${field}`, value);
      await page.frameLocator("#card-number iframe").locator("input").pressSequentially("5555555555554444");
      await page.frameLocator("#card-cvv iframe").locator("input").pressSequentially("123");
      await page.fill("#month", "11");
      await page.fill("#year", expiryYear(2));
      await page.click("#pay-button");
      await page.locator("#pay-result[data-state=saved]").waitFor({ timeout: 15_000 });
      const pmId = await page.locator("#pay-result").getAttribute("data-payment-method");
      expect(errors).toEqual([]);
      expect(await page.content()).not.toContain("5555555555554444");
      const pm = (await ctx.call("GET", `/payment-method/${pmId}`)).body;
      expect(pm).toMatchObject({ card_type: "mastercard", card_last_four: "4444" });
      expect(pm.customer).toMatchObject({ firstname: ADA.firstname, email: ADA.email });
    } finally {
      await page.close();
    }
    // Nothing was charged or invoiced; the link counts a use, no sale.
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(invoicesBefore);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(transactionsBefore);
    const after = (await ctx.call("GET", `/query/payment-links/${link.id}`)).body.data;
    expect(after).toMatchObject({ uses: 1, total_sales: 0, total_transactions: 0 });
  }, 90_000);

  test("an expired link's page says so; a deleted link's page is a 404", async () => {
    const now: string = (await ctx.call("GET", "/_sandbox/clock")).body.now;
    const made = await ctx.call("POST", "/query/payment-links", {
      body: { common_name: "Early bird", amount: 5, expires_at: now },
    });
    const link = made.body.body;
    const page = await browser.newPage();
    try {
      await page.goto(link.tinyurl);
      expect(await page.locator("#link-closed").textContent()).toBe("This payment link has expired.");
      await ctx.call("DELETE", `/query/payment-links/${link.id}`);
      const gone = await page.goto(link.tinyurl);
      expect(gone?.status()).toBe(404);
    } finally {
      await page.close();
    }
  }, 60_000);
});
