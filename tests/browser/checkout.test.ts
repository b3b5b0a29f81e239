/**
 * The example integrator page (examples/checkout.html, served on its own port) paying through
 * the real sandbox (another port, so another origin) in headless Chromium.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startExampleServer } from "../../examples/serve";
import { PaymentMethodRecord } from "../../src/domain/schemas/records";
import { MESSAGES } from "../../packages/rules/messages";
import { TEST_CARDS } from "../../packages/rules/test-data";
import { serve, setup, tokenize, waitFor, type TestContext } from "../support/app";
import { DECLINE_REASONS } from "../../packages/rules/declines";
import { artifactPath, collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";
import { bankPayDetails, cardPayDetails } from "../support/fixtures";

// A real browser on a shared 2-core machine: generous bounds, never a timing assertion.
setDefaultTimeout(30_000);
type Outcome =
  | { ok: true; invoice: any }
  | {
      ok: false;
      error: {
        name: string;
        code: string;
        message: string;
        fields?: any;
        invoice?: any;
        declineCode?: string;
        retryable?: boolean;
      };
    };

const GRACE = {
  firstname: "Grace",
  lastname: "Hopper",
  email: "grace@example.com",
  phone: "5555550123",
  address_1: "1 Compiler Road",
  address_city: "Arlington",
  address_state: "VA",
  address_zip: "22201",
};

describe.skipIf(!HAS_CHROMIUM)("example checkout page in Chromium", () => {
  let ctx: TestContext;
  let sandbox: ReturnType<typeof serve>;
  let example: ReturnType<typeof startExampleServer>;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];

  /** Runs pay() of the page's card or bank instance and returns what it resolved or rejected with. */
  const pay = (details: Record<string, unknown>): Promise<Outcome> =>
    page.evaluate(async (d) => {
      const checkout = (window as any).checkout;
      try {
        return { ok: true as const, invoice: await checkout[d.method as string].pay(d) };
      } catch (e: any) {
        const error = {
          name: e.name,
          code: e.code,
          message: e.message,
          fields: e.fields,
          invoice: e.invoice,
          declineCode: e.declineCode,
          retryable: e.retryable,
        };
        return { ok: false as const, error };
      }
    }, details);

  const setCard = (pan: string, cvv: string) =>
    page.evaluate(
      async ([p, c]) => {
        const handler = (window as any).checkout.handler;
        await handler.setTestPan(p);
        await handler.setTestCvv(c);
      },
      [pan, cvv],
    );

  const cardDetails = (extra: Record<string, unknown> = {}) => cardPayDetails(GRACE, { total: "12.34", ...extra });
  const bankDetails = (extra: Record<string, unknown> = {}) => bankPayDetails(GRACE, { total: "12.34", ...extra });

  const numberInput = () => page.frameLocator("#card-number iframe").locator("input");
  const cvvInput = () => page.frameLocator("#card-cvv iframe").locator("input");
  const lastEvent = () => page.evaluate(() => (window as any).checkout.events.at(-1));

  beforeAll(async () => {
    ctx = await setup();
    sandbox = serve(ctx);
    example = startExampleServer({ sandboxUrl: sandbox.url, port: 0, token: ctx.token });
    browser = await launchBrowser();
    page = await browser.newPage();
    pageErrors = collectPageErrors(page);
    // Everything any window posts to the integrator's page, recorded before the library loads.
    await page.addInitScript(() => {
      (window as any).received = [];
      window.addEventListener("message", (event) => (window as any).received.push(JSON.stringify(event.data)));
    });
    await page.goto(`${example.url}/`);
    await page.waitForFunction(() => (window as any).checkout?.handler, null, { timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await example?.stop();
    await sandbox?.stop();
  });

  test("the page and the sandbox are different origins, and showCardForm() resolved with the test setters", async () => {
    expect(new URL(example.url).origin).not.toBe(new URL(sandbox.url).origin);
    const handler = await page.evaluate(() => Object.keys((window as any).checkout.handler).sort());
    expect(handler).toEqual(["setTestCvv", "setTestPan"]);
    expect(await page.locator("#card-number iframe").getAttribute("src")).toStartWith(
      `${sandbox.url}/payjs/frames/number.html#`,
    );
  });

  test("typing a test card fires card_form_complete and enables the pay button; deleting a digit fires card_form_uncomplete", async () => {
    expect(await page.isDisabled("#pay-card")).toBe(true);
    await numberInput().pressSequentially("4111111111111111");
    expect(await numberInput().inputValue()).toBe("4111 1111 1111 1111");
    await cvvInput().pressSequentially("123");
    await page.waitForFunction(() => (window as any).checkout.complete, null, { timeout: 15_000 });
    expect(await lastEvent()).toEqual([
      "card_form_complete",
      {
        complete: true,
        card_type: "visa",
        number: { empty: false, complete: true, valid: true },
        cvv: { empty: false, complete: true, valid: true },
        cardType: "visa",
        validNumber: true,
        validCvv: true,
      },
    ]);
    expect(await page.isEnabled("#pay-card")).toBe(true);

    await numberInput().press("End");
    await numberInput().press("Backspace");
    await page.waitForFunction(() => !(window as any).checkout.complete, null, { timeout: 15_000 });
    expect(await lastEvent()).toEqual([
      "card_form_uncomplete",
      {
        complete: false,
        card_type: "visa",
        number: { empty: false, complete: false, valid: false },
        cvv: { empty: false, complete: true, valid: true },
        cardType: "visa",
        validNumber: false,
        validCvv: true,
      },
    ]);
    expect(await page.isDisabled("#pay-card")).toBe(true);
  });

  test("setTestPan and setTestCvv fill the frames and the form state follows", async () => {
    await setCard("378282246310005", "1234");
    expect(await numberInput().inputValue()).toBe("3782 822463 10005");
    expect(await cvvInput().inputValue()).toBe("1234");
    expect(await lastEvent()).toEqual([
      "card_form_complete",
      {
        complete: true,
        card_type: "amex",
        number: { empty: false, complete: true, valid: true },
        cvv: { empty: false, complete: true, valid: true },
        cardType: "american_express",
        validNumber: true,
        validCvv: true,
      },
    ]);
    // The Amex CVV is one digit too long for a Visa: the form is no longer complete...
    await page.evaluate(() => (window as any).checkout.handler.setTestPan("4111111111111111"));
    expect(await lastEvent()).toEqual([
      "card_form_uncomplete",
      {
        complete: false,
        card_type: "visa",
        number: { empty: false, complete: true, valid: true },
        cvv: { empty: false, complete: false, valid: false },
        cardType: "visa",
        validNumber: true,
        validCvv: false,
      },
    ]);
    // ...the CVV frame lets a person type only a Visa's three digits...
    await waitFor(
      async () => (await cvvInput().getAttribute("maxlength")) === "3",
      5000,
      "the CVV frame to learn the brand",
    );
    // ...but a set value is never cut to the brand the CVV frame happened to see (the brand may
    // still change: issue 13); four digits on a Visa keep the form incomplete, three complete it.
    await page.evaluate(() => (window as any).checkout.handler.setTestCvv("1234"));
    expect(await cvvInput().inputValue()).toBe("1234");
    expect((await lastEvent())[1]).toMatchObject({ complete: false, validCvv: false });
    await page.evaluate(() => (window as any).checkout.handler.setTestCvv("123"));
    expect((await lastEvent())[0]).toBe("card_form_complete");
  });

  test("clicking Pay with the approving Visa shows a PAID invoice that matches what the API returns", async () => {
    await setCard("4111111111111111", "123");
    await page.click("#pay-card");
    await page.waitForFunction(() => /^Paid|:/.test(document.getElementById("status")!.textContent ?? ""), null, {
      timeout: 15_000,
    });
    expect(await page.textContent("#status")).toMatch(/^Paid: invoice .* is PAID$/);
    await page.screenshot({ path: artifactPath("checkout-paid.png"), fullPage: true });
    const invoice = JSON.parse((await page.textContent("#result"))!);
    expect(invoice.status).toBe("PAID");
    expect(invoice.total).toBe(Number(await page.inputValue("#total")));
    expect(invoice.balance_due).toBe(0);
    expect(invoice.is_webpayment).toBe(true);
    // The receipt is stored with the payment: pay() resolves with the invoice already e-mailed.
    expect(invoice.sent_at).toEqual(expect.any(String));
    expect(invoice.child_transactions[0].receipt_email_at).toEqual(expect.any(String));

    const [transaction, customer, paymentMethod, stored] = await Promise.all([
      ctx.call("GET", `/transaction/${invoice.child_transactions[0].id}`),
      ctx.call("GET", `/customer/${invoice.customer_id}`),
      ctx.call("GET", `/payment-method/${invoice.payment_method_id}`),
      ctx.call("GET", `/invoice/${invoice.id}`),
    ]);
    expect(transaction.status).toBe(200);
    expect(invoice.child_transactions[0]).toEqual(transaction.body);
    expect(transaction.body).toMatchObject({
      type: "charge",
      success: true,
      total: invoice.total,
      last_four: "1111",
      invoice_id: invoice.id,
      payment_method_id: invoice.payment_method_id,
    });
    expect(invoice.customer).toEqual(customer.body);
    // What the page's form holds (examples/checkout.html).
    expect(customer.body).toMatchObject({ firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" });
    expect(paymentMethod.body).toMatchObject({
      method: "card",
      card_type: "visa",
      card_last_four: "1111",
      card_exp: (await page.inputValue("#month")) + (await page.inputValue("#year")).slice(2),
      person_name: "Ada Lovelace",
      has_cvv: true,
      customer_id: invoice.customer_id,
    });
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual(invoice);
  });

  for (const brand of ["visa", "mastercard", "amex", "discover", "jcb", "diners"]) {
    const approving = TEST_CARDS.find((card) => card.brand === brand && card.outcome === "approve")!;
    const declining = TEST_CARDS.find((card) => card.brand === brand && card.outcome === "decline")!;
    const cvv = brand === "amex" ? "1234" : "123";

    test(`${brand}: ${approving.number} approves and ${declining.number} declines with the invoice attached`, async () => {
      await setCard(approving.number, cvv);
      const paid = await pay(cardDetails());
      expect(paid.ok).toBe(true);
      if (!paid.ok) return;
      expect(paid.invoice.status).toBe("PAID");
      expect(paid.invoice.child_transactions[0]).toMatchObject({
        success: true,
        last_four: approving.number.slice(-4),
        type: "charge",
      });
      expect(paid.invoice.child_transactions[0].payment_method.card_type).toBe(brand);

      await setCard(declining.number, cvv);
      const declined = await pay(cardDetails());
      expect(declined.ok).toBe(false);
      if (declined.ok) return;
      expect(declined.error).toMatchObject({ name: "PayJsError", code: "payment_declined" });
      expect(declined.error.message).not.toBe("");
      expect(declined.error.invoice).toMatchObject({
        status: "ATTEMPTED",
        payment_attempt_failed: true,
        balance_due: 12.34,
      });
      expect(declined.error.invoice.payment_attempt_message).not.toBe("");
      expect(declined.error.invoice.child_transactions[0]).toMatchObject({
        success: false,
        last_four: declining.number.slice(-4),
      });
    });
  }

  test("an outcome sequence: pay() rejects with the armed decline and its code, and the retry is PAID", async () => {
    // The sequence follows the card: arm it through a payment method of the same number.
    const armed = await tokenize(ctx, { card_number: "5555555555554444" });
    const sequence = await ctx.call("POST", "/_sandbox/outcomes", {
      body: { payment_method_id: armed.id, outcomes: ["issuer_unavailable"] },
      auth: false,
    });
    expect(sequence.status).toBe(200);
    await setCard("5555555555554444", "123");
    const declined = await pay(cardDetails());
    expect(declined.ok).toBe(false);
    if (declined.ok) return;
    expect(declined.error).toMatchObject({
      name: "PayJsError",
      code: "payment_declined",
      declineCode: "issuer_unavailable",
      retryable: true,
      message: DECLINE_REASONS.issuer_unavailable.message,
    });
    expect(declined.error.invoice.child_transactions[0]).toMatchObject({
      success: false,
      decline_code: "issuer_unavailable",
    });
    const retried = await pay(cardDetails());
    expect(retried.ok).toBe(true);
    if (!retried.ok) return;
    expect(retried.invoice.status).toBe("PAID");
    expect(retried.invoice.child_transactions[0]).toMatchObject({ success: true, last_four: "4444" });
  });

  test("bank: the test account approves, another account at the test routing declines", async () => {
    const paid = await pay(bankDetails());
    expect(paid.ok).toBe(true);
    if (!paid.ok) return;
    expect(paid.invoice.status).toBe("PAID");
    expect(paid.invoice.child_transactions[0]).toMatchObject({ method: "bank", success: true, last_four: "3210" });
    const transaction = await ctx.call("GET", `/transaction/${paid.invoice.child_transactions[0].id}`);
    expect(paid.invoice.child_transactions[0]).toEqual(transaction.body);

    const declined = await pay(bankDetails({ bank_account: "1111222233" }));
    expect(declined.ok).toBe(false);
    if (declined.ok) return;
    expect(declined.error.code).toBe("payment_declined");
    expect(declined.error.invoice).toMatchObject({ status: "ATTEMPTED", payment_attempt_failed: true });
  });

  test("the bank tab's button pays with what the form holds", async () => {
    await page.click("#tab-bank");
    await page.click("#pay-bank");
    await page.waitForFunction(() => /^Paid|:/.test(document.getElementById("status")!.textContent ?? ""), null, {
      timeout: 15_000,
    });
    expect(await page.textContent("#status")).toMatch(/is PAID$/);
    await page.click("#tab-card");
  });

  test("pay() rejects a rule failure with validation_error before sending anything, with the server's messages", async () => {
    await setCard("4111111111111111", "123");
    const before = (await ctx.call("GET", "/transaction?per_page=1")).body.total;
    const bad = { phone: "555", address_state: "VIR", month: "13" };
    const client = await pay(cardDetails(bad));
    expect(client.ok).toBe(false);
    if (client.ok) return;
    expect(client.error.code).toBe("validation_error");
    expect(client.error.message).toBe(`${MESSAGES.maxLength("address_state", 2)} (and 2 more errors)`);
    expect(client.error.fields).toEqual({
      phone: [MESSAGES.minLength("phone", 10)],
      address_state: [MESSAGES.maxLength("address_state", 2)],
      month: [MESSAGES.month],
    });
    expect((await ctx.call("GET", "/transaction?per_page=1")).body.total).toBe(before);

    // validate: false sends it anyway: the server refuses with the same message.
    const server = await pay(cardDetails({ phone: "555", validate: false }));
    expect(server.ok).toBe(false);
    if (server.ok) return;
    expect(server.error.code).toBe("validation_error");
    expect(server.error.fields.phone).toEqual([MESSAGES.minLength("phone", 10)]);
  });

  test("pay() reports an incomplete card form as validation errors of card_number and card_cvv", async () => {
    await setCard("4111111111111112", "");
    const outcome = await pay(cardDetails());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe("validation_error");
    expect(outcome.error.fields).toEqual({
      card_number: [MESSAGES.cardNumberInvalid],
      card_cvv: [MESSAGES.cvvInvalid(3)],
    });
  });

  test("the page cannot read the frames' documents and never received a card number or CVV in any message", async () => {
    const access = await page.evaluate(() => {
      const frame = document.querySelector<HTMLIFrameElement>("#card-number iframe")!;
      let error = "";
      try {
        void frame.contentWindow!.document.body;
      } catch (e: any) {
        error = e.name;
      }
      return { contentDocument: frame.contentDocument, error };
    });
    expect(access).toEqual({ contentDocument: null, error: "SecurityError" });

    const received: string[] = await page.evaluate(() => (window as any).received);
    expect(received.length).toBeGreaterThan(10);
    const everything = received.join("\n");
    for (const card of TEST_CARDS.slice(0, 12)) {
      expect(everything).not.toContain(card.number);
      expect(everything).not.toContain(card.number.slice(0, 8));
    }
    expect(everything).not.toContain("card_number");
    expect(everything).not.toContain("card_cvv");
    expect(everything).not.toContain('"1234"');
    // After tokenizing, the page learns the stored payment method record (what tokenize() resolves
    // with: brand, last four, expiry, customer), exactly its documented fields and nothing of the card.
    const tokenized = received.map((text) => JSON.parse(text)).filter((message) => message?.type === "tokenized");
    expect(tokenized.length).toBeGreaterThan(0);
    for (const message of tokenized) {
      expect(Object.keys(message.payment_method).sort()).toEqual(Object.keys(PaymentMethodRecord.properties).sort());
    }
  });

  test("a message forged on the page with the instance id does not fire events", async () => {
    const fired = await page.evaluate(async () => {
      const checkout = (window as any).checkout;
      await checkout.handler.setTestPan("");
      const count = checkout.events.length;
      const name = document.querySelector("#card-number iframe")!.getAttribute("name")!;
      const instance = name.replace("payjs-number-", "");
      const field = { empty: false, complete: true, valid: true };
      const forged = { library: "payjs", instance, type: "state", seq: { number: 99, cvv: 99 } };
      // The library's listener was added before this one, so it has handled the forged message
      // by the time this one sees it: no fixed wait.
      const handled = new Promise((resolve) =>
        window.addEventListener("message", (event) => event.data?.seq?.number === 99 && resolve(null)),
      );
      window.postMessage({ ...forged, state: { complete: true, card_type: "visa", number: field, cvv: field } }, "*");
      await handled;
      return checkout.events.slice(count);
    });
    expect(fired).toEqual([]);
  });

  test("the page logged no errors (Chromium's notes of the expected 402 and 422 answers aside)", () => {
    expect(pageErrors.filter((line) => !/Failed to load resource: .* (402|422) /.test(line))).toEqual([]);
  });
});
