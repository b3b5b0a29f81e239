/**
 * PayJs as docs/spec.md types it and as live checkout pages call it, in Chromium, from a page on
 * its own origin (another loopback port than the sandbox): the constructor table with string
 * and object styles, every input type, every event name, setTestPan/setTestCvv without awaits
 * for every brand change, frames that size themselves, tokenize(), and a decline's invoice.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, ConsoleMessage, Page } from "playwright-core";
import { startExampleServer } from "../../examples/serve";
import { LIBRARY_MESSAGES } from "../../packages/payjs/errors";
import { TEST_CARDS } from "../../packages/rules/test-data";
import { serve, setup, waitFor, type TestContext } from "../support/app";
import { artifactPath, collectPageErrors, HAS_CHROMIUM, launchBrowser } from "../support/browser";
import { cardPayDetails, expiryYear } from "../support/fixtures";

// A real browser on a shared 2-core machine: generous bounds, never a timing assertion.
setDefaultTimeout(60_000);
const YEAR = expiryYear(2);
const CUSTOMER = {
  firstname: "Dorothy",
  lastname: "Vaughan",
  email: "dorothy@example.com",
  phone: "5555550142",
  address_1: "2 Langley Road",
  address_city: "Hampton",
  address_state: "VA",
};
const CARD_DETAILS = cardPayDetails(CUSTOMER, {}, { month: "10", yearsAhead: 2 });
const BRANDS = ["visa", "mastercard", "amex", "discover", "diners", "jcb"] as const;
const LIVE_NAMES = {
  visa: "visa",
  mastercard: "master",
  amex: "american_express",
  discover: "discover",
  diners: "diners_club",
  jcb: "jcb",
} as const;
const approving = (brand: string) => TEST_CARDS.find((card) => card.brand === brand && card.outcome === "approve")!;

/**
 * The constructor table of docs/spec.md as a new integrator writes it (unsized containers, string
 * styles), a second instance in sized containers with object styles, and a third whose style
 * tries what the allowlist refuses.
 */
const SPEC_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>spec checkout</title>
<script src="{{SANDBOX_URL}}/payjs.js"></script>
<style>body{font:14px sans-serif;margin:12px;width:480px}.sized{height:60px;margin-bottom:8px}</style></head><body>
<p>From the specification's table (containers without a height)</p>
<div id="card-number"></div><div id="card-cvv"></div>
<p>Sized containers, object styles</p>
<div id="sized-number" class="sized"></div><div id="sized-cvv" class="sized"></div>
<p>Hostile style</p>
<div id="hostile-number"></div><div id="hostile-cvv"></div>
<script>
  window.spec = { events: [] };
  const payjs = new PayJs("{{TOKEN}}", {
    number: { id: "card-number", placeholder: "Card number", style: "width: 100%; height: 2em; font-size: 14px", format: "prettyFormat" },
    cvv: { id: "card-cvv", placeholder: "CVV", style: "width: 100%; height: 2em; font-size: 14px" },
  });
  for (const name of ["card_form_complete", "card_form_uncomplete", "card_form_incomplete"])
    payjs.on(name, (message) => window.spec.events.push([name, message]));
  window.spec.payjs = payjs;
  payjs.showCardForm().then((handler) => (window.spec.handler = handler), (e) => (window.spec.failed = e.message));
  const sized = new PayJs("{{TOKEN}}", {
    number: { id: "sized-number", style: { fontSize: "18px", color: "rgb(200, 0, 0)" } },
    cvv: { id: "sized-cvv", style: { "font-size": "18px" } },
  });
  sized.showCardForm().then((handler) => (window.spec.sized = handler), (e) => (window.spec.failed = e.message));
  const hostile = new PayJs("{{TOKEN}}", {
    number: { id: "hostile-number", style: "color: rgb(0, 128, 0); background-image: url(https://evil.test/x.png); behavior: url(x.htc); font-size: 13px;}</style><script>parent.pwned = 1<\\/script>" },
    cvv: { id: "hostile-cvv", style: "width: expression(alert(1)); background-color: u\\\\72l(https://evil.test/)" },
  });
  hostile.showCardForm().then((handler) => (window.spec.hostile = handler), (e) => (window.spec.failed = e.message));
</script></body></html>`;

/** One instance per input type of the specification's `type` member. */
const TYPES_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>types</title>
<script src="{{SANDBOX_URL}}/payjs.js"></script></head><body>
<script>
  window.types = {};
  for (const type of ["text", "tel", "number", "password"]) {
    document.body.insertAdjacentHTML("beforeend", '<div id="n-' + type + '"></div><div id="c-' + type + '"></div>');
    const payjs = new PayJs("{{TOKEN}}", {
      number: { id: "n-" + type, type, format: "prettyFormat", style: "font-size: 14px" },
      cvv: { id: "c-" + type, type },
    });
    payjs.showCardForm().then((handler) => (window.types[type] = handler));
  }
</script></body></html>`;

/** A card form in a tab that is hidden when showCardForm() runs, shown later. */
const HIDDEN_PAGE = `<!doctype html><html><head><meta charset="utf-8"><script src="{{SANDBOX_URL}}/payjs.js"></script></head>
<body><section id="tab" hidden><div id="card-number"></div><div id="card-cvv"></div></section>
<script>
  const payjs = new PayJs("{{TOKEN}}", {
    number: { id: "card-number", style: "font-size: 20px; padding: 4px; border: 2px solid #333" },
    cvv: { id: "card-cvv", style: "font-size: 20px; padding: 4px; border: 2px solid #333" },
  });
  payjs.showCardForm().then((handler) => (window.handler = handler));
</script></body></html>`;

const BLANK_PAGE = `<!doctype html><html><head><meta charset="utf-8"><script src="{{SANDBOX_URL}}/payjs.js"></script></head>
<body><div id="card-number"></div><div id="card-cvv"></div></body></html>`;

describe.skipIf(!HAS_CHROMIUM)("PayJs as the specification types it, in Chromium", () => {
  let ctx: TestContext;
  let sandbox: ReturnType<typeof serve>;
  let example: ReturnType<typeof startExampleServer>;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  /** Every console warning of the page and its frames, in order. */
  const warnings: string[] = [];

  const input = (p: Page, container: string) => p.frameLocator(`#${container} iframe`).locator("input");
  const count = async (path: string) => (await ctx.call("GET", `${path}?per_page=1`)).body.total as number;

  beforeAll(async () => {
    ctx = await setup();
    sandbox = serve(ctx);
    example = startExampleServer({
      sandboxUrl: sandbox.url,
      port: 0,
      token: ctx.token,
      pages: {
        "/spec.html": SPEC_PAGE,
        "/types.html": TYPES_PAGE,
        "/blank.html": BLANK_PAGE,
        "/hidden.html": HIDDEN_PAGE,
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 520, height: 640 } });
    pageErrors = collectPageErrors(page);
    page.on("console", (message: ConsoleMessage) => {
      if (message.type() === "warning") warnings.push(message.text());
    });
    await page.goto(`${example.url}/spec.html`);
    await page.waitForFunction(() => (window as any).spec.handler && (window as any).spec.sized, null, {
      timeout: 20_000,
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await example?.stop();
    await sandbox?.stop();
  });

  test("the page and the sandbox are different origins; the specification's constructor example renders its card form", async () => {
    expect(new URL(example.url).origin).not.toBe(new URL(sandbox.url).origin);
    expect(await page.evaluate(() => (window as any).spec.failed ?? null)).toBeNull();
    const number = await input(page, "card-number").evaluate((el: HTMLInputElement) => ({
      placeholder: el.placeholder,
      fontSize: getComputedStyle(el).fontSize,
      height: getComputedStyle(el).height,
    }));
    expect(number).toEqual({ placeholder: "Card number", fontSize: "14px", height: "28px" });
    expect(await input(page, "card-cvv").getAttribute("placeholder")).toBe("CVV");
    // Object styles, in the sized instance.
    const sized = await input(page, "sized-number").evaluate((el: HTMLInputElement) => ({
      fontSize: getComputedStyle(el).fontSize,
      color: getComputedStyle(el).color,
    }));
    expect(sized).toEqual({ fontSize: "18px", color: "rgb(200, 0, 0)" });
    expect(await input(page, "sized-cvv").evaluate((el) => getComputedStyle(el).fontSize)).toBe("18px");
  });

  test("an unsized container gets a frame as tall as its styled input (not 150 px); a sized one keeps its height", async () => {
    // The frame reports its height after it loads: wait for the parent to apply it.
    await page.waitForFunction(
      () => document.querySelector<HTMLIFrameElement>("#card-number iframe")!.getBoundingClientRect().height < 100,
      null,
      { timeout: 15_000 },
    );
    await page.screenshot({ path: artifactPath("payjs-autosize.png"), fullPage: true });
    const box = async (container: string) => (await page.locator(`#${container} iframe`).boundingBox())!.height;
    const inputHeight = await input(page, "card-number").evaluate((el) => el.getBoundingClientRect().height);
    expect(inputHeight).toBe(28);
    for (const container of ["card-number", "card-cvv"]) {
      expect(Math.abs((await box(container)) - inputHeight)).toBeLessThanOrEqual(2);
    }
    // The hostile instance has no height in its style: the frame's default input, still not 150 px.
    expect(await box("hostile-number")).toBeLessThan(60);
    for (const container of ["sized-number", "sized-cvv"]) {
      expect(await box(container)).toBe(60);
      expect((await page.locator(`#${container}`).boundingBox())!.height).toBe(60);
    }
  });

  test("a card form inserted into a hidden tab sizes itself to its input once the tab is shown", async () => {
    const hidden = await browser.newPage({ viewport: { width: 520, height: 400 } });
    try {
      await hidden.goto(`${example.url}/hidden.html`);
      await hidden.waitForFunction(() => (window as any).handler, null, { timeout: 20_000 });
      await hidden.evaluate(() => (document.getElementById("tab")!.hidden = false));
      const inputHeight = await input(hidden, "card-number").evaluate((el) => el.getBoundingClientRect().height);
      expect(inputHeight).toBeGreaterThan(20);
      await hidden.waitForFunction(
        (want) =>
          ["card-number", "card-cvv"].every(
            (id) => Math.abs(document.querySelector(`#${id} iframe`)!.getBoundingClientRect().height - want) <= 2,
          ),
        inputHeight,
        { timeout: 15_000 },
      );
      await hidden.screenshot({ path: artifactPath("payjs-autosize-hidden-tab.png") });
    } finally {
      await hidden.close();
    }
  });

  test("a hostile style string is applied only as far as the allowlist goes, with one warning per dropped property", async () => {
    await page.waitForFunction(() => (window as any).spec.hostile, null, { timeout: 15_000 });
    const styled = await input(page, "hostile-number").evaluate((el: HTMLInputElement) => ({
      color: getComputedStyle(el).color,
      fontSize: getComputedStyle(el).fontSize,
      backgroundImage: getComputedStyle(el).backgroundImage,
      styleElements: document.querySelectorAll("style").length,
      scripts: document.querySelectorAll("script").length,
    }));
    // The frame page has one <style> and one <script> of its own; nothing was added.
    expect(styled).toEqual({
      color: "rgb(0, 128, 0)",
      fontSize: "13px",
      backgroundImage: "none",
      styleElements: 1,
      scripts: 1,
    });
    expect(await input(page, "hostile-cvv").evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
      "rgb(255, 255, 255)",
    );
    expect(await page.evaluate(() => (window as any).pwned ?? null)).toBeNull();
    // The integrator's page got nothing of it but the frames themselves.
    // (The option travels to the frame URL-encoded in its address; it is never markup or style here.)
    const parent = await page.evaluate(() => ({
      children: [...document.querySelector("#hostile-number")!.children].map((el) => el.tagName),
      frameStyle: document.querySelector("#hostile-number iframe")!.getAttribute("style"),
      styleElements: document.querySelectorAll("style").length,
      scripts: document.querySelectorAll("script").length,
    }));
    expect(parent).toMatchObject({ children: ["IFRAME"], styleElements: 1, scripts: 2 });
    expect(String(parent.frameStyle)).not.toMatch(/evil|url|behavior|expression|13px/);
    // Console messages of the frames reach the test asynchronously: wait for them, bounded.
    const hostileWarnings = (await waitFor(
      () => {
        const found = warnings.filter((w) => w.includes(".style:"));
        return found.length >= 5 ? found : null;
      },
      15_000,
      "the frames' style warnings",
    ))!.sort();
    expect(hostileWarnings).toEqual(
      [
        LIBRARY_MESSAGES.styleDropped("number", "background-image"),
        LIBRARY_MESSAGES.styleDropped("number", "behavior"),
        LIBRARY_MESSAGES.styleDropped("number", "}</style><script>parent.pwned"),
        LIBRARY_MESSAGES.styleDropped("cvv", "width"),
        LIBRARY_MESSAGES.styleDropped("cvv", "background-color"),
      ].sort(),
    );
  });

  test("every event name: card_form_complete with cardType, validNumber and validCvv; card_form_uncomplete and card_form_incomplete together", async () => {
    await page.evaluate(async () => {
      const spec = (window as any).spec;
      spec.events.length = 0;
      await spec.handler.setTestPan("5555555555554444");
      await spec.handler.setTestCvv("321");
    });
    await page.waitForFunction(() => (window as any).spec.events.length >= 1, null, { timeout: 15_000 });
    const complete = await page.evaluate(() => (window as any).spec.events.at(-1));
    expect(complete).toEqual([
      "card_form_complete",
      {
        complete: true,
        card_type: "mastercard",
        number: { empty: false, complete: true, valid: true },
        cvv: { empty: false, complete: true, valid: true },
        cardType: "master",
        validNumber: true,
        validCvv: true,
      },
    ]);
    await page.evaluate(async () => {
      const spec = (window as any).spec;
      spec.events.length = 0;
      await spec.handler.setTestCvv("32");
    });
    const events = await page.evaluate(() => (window as any).spec.events);
    expect(events.map((event: [string]) => event[0])).toEqual(["card_form_uncomplete", "card_form_incomplete"]);
    expect(events[1][1]).toEqual(events[0][1]);
    expect(events[0][1]).toMatchObject({ complete: false, cardType: "master", validNumber: true, validCvv: false });
  });

  test("on() with an unknown event name warns once in the console and returns normally", async () => {
    const before = warnings.length;
    const outcome = await page.evaluate(() => {
      try {
        return { returned: (window as any).spec.payjs.on("card_form_changed", () => {}) ?? "undefined" };
      } catch (e: any) {
        return { threw: e.message };
      }
    });
    expect(outcome).toEqual({ returned: "undefined" });
    await waitFor(() => warnings.length > before || null, 10_000, "the warning");
    // A later warning would be a second one: the page pauses on a round trip first.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect(warnings.slice(before)).toEqual([LIBRARY_MESSAGES.unknownEvent("card_form_changed")]);
  });

  test("setTestPan/setTestCvv without awaits take effect in call order for every brand change, and tokenize() waits for them", async () => {
    const customer = await ctx.call("POST", "/customer", { body: { firstname: "Mary", lastname: "Jackson" } });
    expect(customer.status).toBe(200);
    const pairs = BRANDS.flatMap((from) => BRANDS.filter((to) => to !== from).map((to) => [from, to] as const));
    const cards = Object.fromEntries(BRANDS.map((brand) => [brand, approving(brand).number]));
    const results = await page.evaluate(
      async ([pairList, numbers, details]) => {
        const { payjs, handler } = (window as any).spec;
        const cvv = (brand: string) => (brand === "amex" ? "1234" : "123");
        const out: string[] = [];
        for (const [from, to] of pairList) {
          // Not awaited: each call must still land in call order before tokenize() validates.
          handler.setTestPan(numbers[from]);
          handler.setTestCvv(cvv(from));
          handler.setTestPan(numbers[to]);
          handler.setTestCvv(cvv(to));
          try {
            const method = await payjs.tokenize(details);
            out.push(`${from}->${to}: ${method.card_type} ${method.card_last_four}`);
          } catch (e: any) {
            out.push(`${from}->${to}: ${e.code} ${e.message}`);
          }
        }
        return out;
      },
      [
        pairs,
        cards,
        {
          method: "card",
          month: "10",
          year: YEAR,
          firstname: "Mary",
          lastname: "Jackson",
          customer_id: customer.body.id,
        },
      ] as const,
    );
    expect(results).toEqual(pairs.map(([from, to]) => `${from}->${to}: ${to} ${cards[to]!.slice(-4)}`));
  });

  test("the issue's sequence pays: a Visa, then setTestPan(Amex) and setTestCvv of 4 digits without awaits, then pay()", async () => {
    const invoice = await page.evaluate(async (details) => {
      const { payjs, handler } = (window as any).spec;
      await handler.setTestPan("4111111111111111");
      await handler.setTestCvv("123");
      handler.setTestPan("378282246310005");
      handler.setTestCvv("1234");
      return payjs.pay({ ...details, total: 3.5 });
    }, CARD_DETAILS);
    expect(invoice).toMatchObject({ status: "PAID", total: 3.5, payment_attempt_failed: false });
    expect(invoice.child_transactions[0]).toMatchObject({ success: true, last_four: "0005" });
  });

  test("tokenize() resolves with the stored payment method and creates no invoice and no transaction", async () => {
    const invoicesBefore = await count("/invoice");
    const transactionsBefore = await count("/transaction");
    const method = await page.evaluate(async (details) => {
      const { payjs, handler } = (window as any).spec;
      handler.setTestPan("6011111111111117");
      handler.setTestCvv("987");
      return payjs.tokenize(details);
    }, CARD_DETAILS);
    expect(method).toMatchObject({
      method: "card",
      card_type: "discover",
      card_last_four: "1117",
      card_exp: `10${YEAR.slice(2)}`,
      person_name: "Dorothy Vaughan",
      customer: { firstname: "Dorothy", lastname: "Vaughan", email: "dorothy@example.com" },
    });
    expect(JSON.stringify(method)).not.toContain("6011111111111117");
    // What the page got is what the sandbox stored.
    const stored = await ctx.call("GET", `/payment-method/${method.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id: method.id, customer_id: method.customer_id, card_last_four: "1117" });
    expect(await count("/invoice")).toBe(invoicesBefore);
    expect(await count("/transaction")).toBe(transactionsBefore);
  });

  test("tokenize() validates first: a missing name and an incomplete card reject with validation_error and send nothing", async () => {
    const before = await count("/customer");
    const error = await page.evaluate(async (details) => {
      const { payjs, handler } = (window as any).spec;
      handler.setTestPan("4111111111111111");
      handler.setTestCvv("12");
      return payjs.tokenize({ ...details, lastname: "" }).then(
        () => null,
        (e: any) => ({ code: e.code, fields: Object.keys(e.fields).sort() }),
      );
    }, CARD_DETAILS);
    expect(error).toEqual({ code: "validation_error", fields: ["card_cvv", "lastname"] });
    expect(await count("/customer")).toBe(before);
  });

  test("a declined pay() rejects with the attempted invoice: payment_attempt_failed and payment_attempt_message", async () => {
    const declined = await page.evaluate(async (details) => {
      const { payjs, handler } = (window as any).spec;
      handler.setTestPan("4012888888881881");
      handler.setTestCvv("123");
      return payjs.pay({ ...details, total: 4.25 }).then(
        () => null,
        (e: any) => ({
          name: e.name,
          code: e.code,
          message: e.message,
          invoice: e.invoice,
          declineCode: e.declineCode,
          retryable: e.retryable,
          // What pages written for the live library read: its rejection is the invoice itself.
          live: { message: e.child_transactions[0].message, attempt: e.payment_attempt_message, id: e.id },
          keys: Object.keys(e).sort(),
        }),
      );
    }, CARD_DETAILS);
    // 4012888888881881 is the generic decline: a retry with the same card would decline again.
    expect(declined).toMatchObject({
      name: "PayJsError",
      code: "payment_declined",
      declineCode: "decline",
      retryable: false,
    });
    expect(declined!.invoice).toMatchObject({ status: "ATTEMPTED", total: 4.25, payment_attempt_failed: true });
    expect(declined!.invoice.payment_attempt_message).not.toBe("");
    expect(declined!.live).toEqual({
      message: declined!.invoice.child_transactions[0].message,
      attempt: declined!.invoice.payment_attempt_message,
      id: declined!.invoice.id,
    });
    expect(declined!.keys).toEqual(["code", "declineCode", "invoice", "name", "retryable"]);
    const stored = await ctx.call("GET", `/invoice/${declined!.invoice.id}`);
    expect(stored.body).toMatchObject({
      payment_attempt_failed: true,
      payment_attempt_message: declined!.invoice.payment_attempt_message,
    });
  });

  test("every input type works: each maps to a safe input and the number keeps its formatting", async () => {
    const typesPage = await browser.newPage();
    const errors = collectPageErrors(typesPage);
    const typeWarnings: string[] = [];
    typesPage.on("console", (m) => m.type() === "warning" && typeWarnings.push(m.text()));
    try {
      await typesPage.goto(`${example.url}/types.html`);
      await typesPage.waitForFunction(() => Object.keys((window as any).types).length === 4, null, { timeout: 20_000 });
      const expected = {
        text: { type: "text", inputMode: "numeric" },
        tel: { type: "tel", inputMode: "numeric" },
        number: { type: "text", inputMode: "numeric" },
        password: { type: "password", inputMode: "numeric" },
      };
      for (const [type, want] of Object.entries(expected)) {
        for (const field of ["n", "c"]) {
          const got = await input(typesPage, `${field}-${type}`).evaluate((el: HTMLInputElement) => ({
            type: el.type,
            inputMode: el.inputMode,
          }));
          expect({ option: type, field, ...got }).toEqual({ option: type, field, ...want });
        }
        await input(typesPage, `n-${type}`).pressSequentially("4111111111111111");
        expect(await input(typesPage, `n-${type}`).inputValue()).toBe("4111 1111 1111 1111");
      }
      expect(typeWarnings).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await typesPage.close();
    }
  });

  test("the README's example (containers and options without a style) gets frames as tall as their inputs, not 150 px", async () => {
    const readme = await browser.newPage();
    try {
      await readme.goto(`${example.url}/blank.html`);
      await readme.evaluate(async (token) => {
        const payjs = new (window as any).PayJs(token, {
          number: { id: "card-number", format: "prettyFormat" },
          cvv: { id: "card-cvv" },
        });
        await payjs.showCardForm();
      }, ctx.token);
      for (const container of ["card-number", "card-cvv"]) {
        const inputHeight = await input(readme, container).evaluate((el) => el.getBoundingClientRect().height);
        const frameHeight = (await readme.locator(`#${container} iframe`).boundingBox())!.height;
        expect(inputHeight).toBeGreaterThan(20);
        expect(Math.abs(frameHeight - inputHeight)).toBeLessThanOrEqual(2);
      }
    } finally {
      await readme.close();
    }
  });

  test("options without cvv for a card form: a TypeError whose message names cvv, and no frame", async () => {
    const blank = await browser.newPage();
    try {
      await blank.goto(`${example.url}/blank.html`);
      const outcome = await blank.evaluate((token) => {
        try {
          new (window as any).PayJs(token, { number: { id: "card-number", placeholder: "Card number" } });
          return null;
        } catch (e: any) {
          return { name: e.name, message: e.message, frames: document.querySelectorAll("iframe").length };
        }
      }, ctx.token);
      expect(outcome).toEqual({
        name: "TypeError",
        message:
          "PayJs: options.cvv expected { id } of the CVV container (a card form needs number and cvv), got undefined",
        frames: 0,
      });
    } finally {
      await blank.close();
    }
  });

  test("the live names of every brand reach the events", async () => {
    const seen = await page.evaluate(
      async ([numbers]) => {
        const { handler } = (window as any).spec;
        const events = (window as any).spec.events;
        const out: Record<string, string> = {};
        for (const [brand, number] of Object.entries(numbers as Record<string, string>)) {
          // From an empty form, so every brand fires its own card_form_complete.
          await handler.setTestPan("");
          await handler.setTestCvv("");
          events.length = 0;
          await handler.setTestPan(number);
          await handler.setTestCvv(brand === "amex" ? "1234" : "123");
          out[brand] = events.at(-1)?.[1].cardType;
        }
        return out;
      },
      [Object.fromEntries(BRANDS.map((brand) => [brand, approving(brand).number]))] as const,
    );
    expect(seen).toEqual(LIVE_NAMES);
  });

  test("the page logged no errors (but the browser's note of the decline's 402)", () => {
    expect(pageErrors.filter((error) => !error.includes("status of 402"))).toEqual([]);
  });
});
