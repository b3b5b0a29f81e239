/**
 * The dashboard in real headless Chromium against a served sandbox with seeded records. Every page,
 * loaded once at 1280 and once at 390 px wide: it renders the seeded records without a script or
 * CSP error, axe-core (@axe-core/playwright) finds no serious or critical violation, nothing
 * scrolls sideways, the navigation keeps to one line at 1280 px (bug: it wrapped onto two), every
 * page offers the clock control and a copy button beside each id, and a screenshot of each lands
 * in test-artifacts/. Then: escaping holds, live refresh shows a refund made through the API, the
 * e-mail view shows the receipt, and the actions work.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import AxeBuilder from "@axe-core/playwright";
import { charge, otherMerchant, tokenize, waitFor, type TestContext } from "../support/app";
import { artifactPath, HAS_CHROMIUM } from "../support/browser";
import { startDashboardBrowser, type DashboardBrowser } from "../support/dashboard";
import { ADA, bankPayDetails } from "../support/fixtures";

const EVIL = "<img src=x onerror=alert(1)>";
const WIDTHS = [1280, 390] as const;

interface Seeded {
  itemId: string;
  linkId: string;
  invoiceId: string;
  paidChargeId: string;
  preAuthId: string;
  customerId: string;
  evilCustomerId: string;
  evilChargeId: string;
  settledChargeId: string;
  emailId: string;
  deliveryId: string;
}

async function seed(ctx: TestContext, hookUrl: string): Promise<Seeded> {
  // Custom fields and receipt options, so the settings page shows its per-field forms and the invoice page its fields.
  const settings = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
    body: {
      advanced_customization: true,
      custom_fields: [
        { id: "po_number", name: "PO number", placeholder: "Ex. PO-123", required: true },
        { id: "internal", name: "Internal code", visible: false },
      ],
      receipt_cc: ["books@example.com"],
      receipt_footer: "Thank you!",
    },
    auth: false,
  });
  expect(settings.status).toBe(200);
  const hook = await ctx.call("POST", "/webhook", { body: { target_url: hookUrl, event: "*" } });
  expect(hook.status).toBe(200);

  // pay() as the browser library runs it: invoice, then pay → a receipt e-mail.
  const pm = await tokenize(ctx);
  const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: {
      ...ADA,
      total: 25.5,
      send_receipt: true,
      payment_method_id: pm.id,
      meta: {
        reference: "ORD-1",
        memo: "Thanks",
        lineItems: [{ item: "Gear", quantity: 2, price: 12.75 }],
        invoice_merchant_custom_fields: [
          { id: "po_number", value: "PO-7649" },
          { id: "internal", value: "X-1" },
        ],
      },
    },
    auth: false,
  });
  expect(invoice.status).toBe(200);
  const paid = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
    body: { payment_method_id: pm.id },
    auth: false,
  });
  expect(paid.status).toBe(200);
  const paidChargeId = paid.body.child_transactions[0].id;
  const preAuth = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 10, pre_auth: true } });
  expect(preAuth.status).toBe(200);
  expect((await ctx.call("POST", `/transaction/${preAuth.body.id}/capture`, { body: { total: 4 } })).status).toBe(200);

  const evilPm = await tokenize(ctx, { firstname: EVIL, lastname: "Mallory", email: "mallory@example.com" });
  const evilCharge = await ctx.call("POST", "/charge", {
    body: { payment_method_id: evilPm.id, total: 7.25, meta: { note: EVIL } },
  });
  expect(evilCharge.status).toBe(200);
  const declined = await charge(ctx, 5, { card_number: "4012888888881881" });
  expect(declined.status).toBe(402);
  const settled = await charge(ctx, 40);
  expect(settled.status).toBe(200);
  const grace = {
    firstname: "Grace",
    lastname: "Hopper",
    email: "grace@example.com",
    phone: "5555550101",
    address_1: "2 Compiler Rd",
    address_city: "Arlington",
    address_state: "VA",
  };
  const bankPm = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
    body: bankPayDetails(grace, { bank_name: "Test Bank" }),
    auth: false,
  });
  expect(bankPm.status).toBe(200);
  expect((await ctx.call("POST", "/charge", { body: { payment_method_id: bankPm.body.id, total: 12 } })).status).toBe(
    200,
  );
  const sms = await ctx.call("POST", `/transaction/${settled.body.id}/receipt-sms`, { body: { phone: "5555550123" } });
  expect(sms.status).toBe(200);
  const mail = await ctx.call("POST", `/transaction/${paidChargeId}/receipt-email`, { body: { email: ADA.email } });
  expect(mail.status).toBe(200);

  // Two days on: the card batch settles and deposits.
  await ctx.deps.clock.advance(ctx.merchantId, 2 * 86_400_000);
  const email = await waitFor(
    () =>
      ctx.deps.sqlite
        .query<{ id: string }, [string]>("SELECT id FROM emails WHERE invoice_id = ?")
        .get(invoice.body.id),
    5000,
    "the receipt e-mail",
  );
  const attempt = await waitFor(
    () =>
      ctx.deps.sqlite
        .query<{ id: string }, [string]>("SELECT delivery_id AS id FROM webhook_attempts WHERE merchant_id = ?")
        .get(ctx.merchantId),
    5000,
    "a webhook attempt",
  );
  const item = await ctx.call("POST", "/item", { body: { item: "Yoga mat", price: 30, in_stock: 1 } });
  const link = await ctx.call("POST", "/query/payment-links", { body: { common_name: "Class pass", amount: 12 } });
  return {
    itemId: item.body.id,
    linkId: link.body.body.id,
    invoiceId: invoice.body.id,
    paidChargeId,
    preAuthId: preAuth.body.id,
    customerId: pm.customer_id,
    evilCustomerId: evilPm.customer_id,
    evilChargeId: evilCharge.body.id,
    settledChargeId: settled.body.id,
    emailId: email!.id,
    deliveryId: attempt!.id,
  };
}

describe.skipIf(!HAS_CHROMIUM)("dashboard in Chromium", () => {
  let dash: DashboardBrowser;
  let ctx: TestContext;
  let url: string;
  let seeded: Seeded;

  beforeAll(async () => {
    dash = await startDashboardBrowser();
    ctx = dash.ctx;
    url = dash.url;
    seeded = await seed(ctx, dash.receiver.url);
  }, 60_000);

  afterAll(() => dash?.stop());

  const open = (path: string) => dash.open(path);

  /** Each page, what its main part must show (null: nothing seeded to look for). */
  const PAGES: [name: string, path: () => string, shows: string | null][] = [
    ["overview", () => "/", "Sandbox Merchant"],
    ["transactions", () => "/dashboard/transactions", "Mallory"],
    ["transactions-declined", () => "/dashboard/transactions?success=false&method=card", "declined"],
    ["transaction", () => `/dashboard/transactions/${seeded.paidChargeId}`, "Lovelace"],
    ["transaction-captured", () => `/dashboard/transactions/${seeded.preAuthId}`, null],
    ["invoices", () => "/dashboard/invoices", "PAID"],
    ["invoice", () => `/dashboard/invoices/${seeded.invoiceId}`, "$25.50"],
    ["customers", () => "/dashboard/customers", "Grace Hopper"],
    ["customer", () => `/dashboard/customers/${seeded.evilCustomerId}`, "Mallory"],
    ["customer-paid", () => `/dashboard/customers/${seeded.customerId}`, null],
    ["emails", () => "/dashboard/emails", "ada@example.com"],
    ["email", () => `/dashboard/emails/${seeded.emailId}`, null],
    ["sms", () => "/dashboard/sms", "5555550123"],
    ["webhooks", () => "/dashboard/webhooks", "create_transaction"],
    ["delivery", () => `/dashboard/webhooks/deliveries/${seeded.deliveryId}`, null],
    ["deposits", () => "/dashboard/deposits", "deposited"],
    ["items", () => "/dashboard/items", "Yoga mat"],
    ["item", () => `/dashboard/items/${seeded.itemId}`, "$30.00"],
    ["payment-links", () => "/dashboard/payment-links", "Class pass"],
    ["payment-link", () => `/dashboard/payment-links/${seeded.linkId}`, "$12.00"],
    ["clock", () => "/dashboard/clock", "Sandbox now"],
    ["keys", () => "/dashboard/keys", "sandbox_api_key"],
    ["settings", () => "/dashboard/settings", null],
    ["test-cards", () => "/dashboard/test-cards", "4111111111111111"],
    ["try-it", () => "/dashboard/try", "Try a payment"],
  ];

  for (const [name, path, shows] of PAGES) {
    test(`${name}: renders the seeded records without a script or CSP error; no serious or critical axe violation, no sideways scroll, one-line nav at 1280 px; screenshots`, async () => {
      const { page, errors } = dash;
      errors.length = 0;
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await dash.go(path());
        if (width === 1280) {
          if (shows !== null) expect(await page.locator("main").innerText()).toContain(shows);
          // Once per page (axe is the slow part); the 390 px layout is checked below. The e-mail's sandboxed
          // frame is the sandbox's rendering of an e-mail, checked by the receipt tests.
          const results = await new AxeBuilder({ page }).exclude("iframe.mail").analyze();
          const bad = results.violations
            .filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
          expect(bad).toEqual([]);
        }
        const layout = await page.evaluate(() => {
          const nav = document.querySelector("header.top nav") as HTMLElement;
          const tops = new Set(Array.from(nav.querySelectorAll("a"), (a) => Math.round(a.getBoundingClientRect().top)));
          return {
            pageWidth: document.documentElement.scrollWidth,
            viewport: window.innerWidth,
            navLines: tops.size,
            navFits: nav.scrollWidth <= nav.clientWidth,
            clockControl: document.querySelector("#header-clock-step") !== null,
            // Every id shown (whole or short, as text or a link) has a copy button next to it.
            idsWithoutCopy: Array.from(document.querySelectorAll("main code, main a.mono"))
              .filter((e) =>
                /^(…[0-9a-f]{8}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.test(
                  e.textContent ?? "",
                ),
              )
              .filter((e) => !e.parentElement?.querySelector("button[data-copy]"))
              .map((e) => e.textContent),
          };
        });
        expect(layout.pageWidth).toBeLessThanOrEqual(layout.viewport);
        expect(layout.navLines).toBe(1);
        if (width === 1280) expect(layout.navFits).toBe(true);
        expect(layout.clockControl).toBe(true);
        expect(layout.idsWithoutCopy).toEqual([]);
        await page.screenshot({ path: artifactPath(`dashboard-${name}-${width}.png`), fullPage: true });
      }
      expect(errors).toEqual([]);
    }, 30_000);
  }

  test("a customer named <img src=x onerror=alert(1)> shows as text on every page and no dialog fires", async () => {
    for (const path of [
      "/",
      "/dashboard/transactions",
      "/dashboard/customers",
      `/dashboard/customers/${seeded.evilCustomerId}`,
      `/dashboard/transactions/${seeded.evilChargeId}`,
    ]) {
      const { page } = await open(path);
      try {
        expect(await page.locator("main").innerText()).toContain(EVIL);
        expect(await page.locator('img[src="x"]').count()).toBe(0);
      } finally {
        await page.close();
      }
    }
    expect(dash.dialogs).toEqual([]);
  });

  test("the transaction page shows a refund made through the API, live, without a reload", async () => {
    const { page } = await open(`/dashboard/transactions/${seeded.settledChargeId}`);
    try {
      await page.waitForSelector("#live.on");
      expect(await page.locator("tr[data-type=refund]").count()).toBe(0);
      const refund = await ctx.call("POST", `/transaction/${seeded.settledChargeId}/refund`, { body: { total: 15 } });
      expect(refund.status).toBe(200);
      const row = page.locator("tr[data-type=refund]");
      await row.waitFor({ timeout: 5000 });
      expect(await row.innerText()).toContain("$15.00");
      expect(await page.locator("h1").innerText()).toContain("partially refunded");
      await page.screenshot({ path: artifactPath("dashboard-transaction-refunded.png"), fullPage: true });
    } finally {
      await page.close();
    }
  });

  test("a new transaction appears on the open transactions list without a reload", async () => {
    const { page } = await open("/dashboard/transactions");
    try {
      await page.waitForSelector("#live.on");
      const created = await charge(ctx, 99.99, { firstname: "Live", lastname: "Update", email: "live@example.com" });
      expect(created.status).toBe(200);
      await page.locator(`tr[data-id="${created.body.id}"]`).waitFor({ timeout: 5000 });
      expect(await page.locator(`tr[data-id="${created.body.id}"]`).innerText()).toContain("$99.99");
    } finally {
      await page.close();
    }
  });

  test("the e-mail view shows the receipt's HTML in a sandboxed frame", async () => {
    const { page, errors } = await open("/dashboard/emails");
    try {
      const frame = page.locator("iframe.mail");
      // Sandboxed: no script, and not the dashboard's origin.
      expect(await frame.getAttribute("sandbox")).toBe("allow-popups allow-popups-to-escape-sandbox");
      const body = page.frameLocator("iframe.mail").locator("body");
      await body.waitFor();
      const text = await body.innerText();
      expect(text).toContain("25.50");
      expect(text).toContain("1111");
      expect(await page.locator(".email .subject").innerText()).not.toBe("");
      // A viewport shot: Chromium's full-page capture leaves frames blank.
      await page.screenshot({ path: artifactPath("dashboard-email-receipt.png") });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("an e-mail has HTML, text, headers, raw source, attachments and links views, reached by keyboard; its links to the sandbox are checked", async () => {
    const context = await dash.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      const raw = await (await fetch(`${url}/_sandbox/emails/${seeded.emailId}.eml`)).text();
      await page.goto(`${url}/dashboard/emails/${seeded.emailId}`);
      const views = page.getByRole("navigation", { name: "Views of this e-mail" });
      expect(await views.getByRole("link").allInnerTexts()).toEqual([
        "HTML",
        expect.stringMatching(/^Text$/),
        expect.stringMatching(/^Headers \(\d+\)$/),
        "Raw source",
        "Attachments (0)",
        expect.stringMatching(/^Links \([1-9]\d*\)$/),
      ]);
      expect(await views.locator("[aria-current=page]").innerText()).toBe("HTML");
      expect(await page.locator("iframe.mail").count()).toBe(1);

      // From the keyboard: focus the Text tab and follow it.
      await views.getByRole("link", { name: "Text" }).focus();
      await Promise.all([page.waitForURL(/view=text/), page.keyboard.press("Enter")]);
      const text = await page.locator("pre.mail-text").innerText();
      expect(text).toContain("$25.50");
      expect(text).toContain("1111");
      expect(await page.locator("iframe.mail").count()).toBe(0);

      await page.goto(`${url}/dashboard/emails/${seeded.emailId}?view=headers`);
      const headers = await page
        .locator("table.mail-headers tr")
        .evaluateAll((rows) =>
          rows.map((row) => Array.from(row.querySelectorAll("td"), (cell) => cell.textContent!.trim())),
        );
      const named = new Map(headers.map(([name, value]) => [name!.toLowerCase(), value]));
      expect(named.get("to")).toBe("ada@example.com");
      expect(named.get("subject")).toContain("$25.50");
      expect(named.get("message-id")).toMatch(/^<.+@.+>$/);
      expect(named.get("content-type")).toContain("multipart/alternative");

      await page.goto(`${url}/dashboard/emails/${seeded.emailId}?view=raw`);
      expect((await page.locator(".email-view pre").innerText()).trimEnd()).toBe(raw.replace(/\r\n/g, "\n").trimEnd());

      await page.goto(`${url}/dashboard/emails/${seeded.emailId}?view=attachments`);
      expect(await page.locator(".email-view").innerText()).toContain("No attachments");

      await page.goto(`${url}/dashboard/emails/${seeded.emailId}?view=links`);
      const checks = page.locator("[data-check]");
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll("[data-check]")).every((slot) => slot.textContent !== "checking…"),
      );
      const results = await page.locator("table.links tbody tr").evaluateAll((rows) =>
        rows.map((row) => ({
          href: row.querySelector("a")!.getAttribute("href")!,
          check: row.querySelector("[data-check]")?.textContent ?? null,
        })),
      );
      expect(await checks.count()).toBeGreaterThan(0);
      const hosted = results.find((result) => result.href.includes("/hosted/invoice/"));
      expect(hosted?.check).toBe("200 OK");

      // An invoice whose hosted link (url + id) leads nowhere: its receipt's link check says so.
      const pm = await tokenize(ctx);
      const broken = await ctx.call("POST", "/invoice", {
        body: {
          customer_id: pm.customer_id,
          total: 3,
          send_receipt: true,
          url: `${url}/hosted/nowhere/`,
          meta: { invoice_merchant_custom_fields: [{ id: "po_number", value: "PO-1" }] },
        },
      });
      expect(broken.status).toBe(200);
      const paid = await ctx.call("POST", `/invoice/${broken.body.id}/pay`, { body: { payment_method_id: pm.id } });
      expect(paid.status).toBe(200);
      const mail = await waitFor(
        () =>
          ctx.deps.sqlite
            .query<{ id: string }, [string]>("SELECT id FROM emails WHERE invoice_id = ?")
            .get(broken.body.id),
        5000,
        "the receipt of the invoice with a broken link",
      );
      await page.goto(`${url}/dashboard/emails/${mail!.id}?view=links`);
      const nowhere = page.locator("table.links tr", { hasText: "/hosted/nowhere/" }).locator("[data-check]");
      await page.waitForFunction(() => document.querySelector("[data-check]")?.textContent !== "checking…");
      expect(await nowhere.innerText()).toBe("404 Not Found");
      expect(await nowhere.getAttribute("class")).toContain("bad");
      const axe = await new AxeBuilder({ page }).analyze();
      expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
      await page.screenshot({ path: artifactPath("dashboard-email-links-1280.png"), fullPage: true });
      await page.setViewportSize({ width: 390, height: 900 });
      await page.reload();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: artifactPath("dashboard-email-links-390.png"), fullPage: true });
    } finally {
      await context.close();
    }
  }, 40_000);

  test("redeliver sends a webhook delivery again and lists the new attempt", async () => {
    const { page } = await open("/dashboard/webhooks");
    try {
      const before = await page.locator("table.deliveries tbody tr").count();
      expect(before).toBeGreaterThan(0);
      await Promise.all([
        page.waitForURL(/\/dashboard\/webhooks/),
        page.locator("table.deliveries tbody tr").first().getByRole("button", { name: "Redeliver" }).click(),
      ]);
      await page.waitForFunction(
        (n) => document.querySelectorAll("table.deliveries tbody tr").length === n + 1,
        before,
      );
      await waitFor(
        () =>
          ctx.deps.sqlite
            .query("SELECT 1 FROM webhook_deliveries WHERE redelivery_of IS NOT NULL AND status = 'delivered'")
            .get(),
        5000,
        "the redelivery",
      );
      await page.reload();
      expect(await page.locator("table.deliveries tbody tr").first().innerText()).toContain("redelivery");
    } finally {
      await page.close();
    }
  });

  test("short ids tell neighbours apart: each row shows its id's random tail, and its copy button copies the whole id", async () => {
    const page = await dash.browser.newPage({ permissions: ["clipboard-read", "clipboard-write"] });
    try {
      await page.goto(`${url}/dashboard/transactions`);
      const rows = await page
        .locator("tbody tr[data-id]")
        .evaluateAll((trs) =>
          trs.map((tr) => ({ id: tr.getAttribute("data-id")!, shown: tr.querySelector("a.mono")!.textContent! })),
        );
      expect(rows.length).toBeGreaterThan(4);
      // The premise: these UUIDv7 ids were made within seconds, so their heads (the time) repeat.
      expect(new Set(rows.map((row) => row.id.slice(0, 8))).size).toBeLessThan(rows.length);
      expect(rows.map((row) => row.shown)).toEqual(rows.map((row) => `…${row.id.slice(-8)}`));
      expect(new Set(rows.map((row) => row.shown)).size).toBe(rows.length);
      const first = page.locator(`tr[data-id="${rows[0]!.id}"] button[data-copy]`).first();
      await first.click();
      await page.waitForFunction(() => document.activeElement?.textContent === "Copied");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rows[0]!.id);

      // The deliveries list's Record column: one short id per record, each the record's tail.
      await page.goto(`${url}/dashboard/webhooks`);
      const records = await page.locator("table.deliveries tbody tr").evaluateAll((trs) =>
        trs.map((tr) => {
          const cell = tr.querySelectorAll("td")[3]!;
          return {
            id: cell.querySelector("button[data-copy]")!.getAttribute("data-copy")!,
            shown: cell.querySelector("code")!.textContent!,
          };
        }),
      );
      const distinct = new Map(records.map((record) => [record.id, record.shown]));
      expect(distinct.size).toBeGreaterThan(3);
      expect([...distinct].map(([id, shown]) => shown === `…${id.slice(-8)}`)).not.toContain(false);
      expect(new Set(distinct.values()).size).toBe(distinct.size);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: artifactPath("dashboard-short-ids-1280.png") });
    } finally {
      await page.close();
    }
  }, 30_000);

  test("a delivery's page shows its attempts first and the payload folded; opened from the keyboard it shows and copies the signed JSON", async () => {
    // A context of its own (AxeBuilder opens a page in the page's context) that may use the clipboard.
    const context = await dash.browser.newContext({
      permissions: ["clipboard-read", "clipboard-write"],
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    try {
      await page.goto(`${url}/dashboard/webhooks/deliveries/${seeded.deliveryId}`);
      const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
      const attemptsTop = (await box("h2:text-is('Attempts')")).y;
      const firstAttempt = await box(".attempt-card");
      const payload = page.locator("details.payload");
      expect(await payload.getAttribute("open")).toBeNull();
      expect((await box("details.payload")).y).toBeGreaterThan(firstAttempt.y);
      expect(attemptsTop).toBeLessThan(500);
      expect(await page.locator("details.payload pre").isVisible()).toBe(false);
      const folded = await page.evaluate(() => document.documentElement.scrollHeight);
      await page.screenshot({ path: artifactPath("dashboard-delivery-folded-1280.png"), fullPage: true });

      // Tab to the summary and open it with Enter, as a keyboard user does.
      await page.locator("details.payload summary").focus();
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SUMMARY");
      await page.keyboard.press("Enter");
      await page.locator("details.payload pre").waitFor({ state: "visible" });
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(folded);
      const shown = await page.locator("details.payload pre").innerText();
      const record = JSON.parse(shown);
      expect(typeof record.id).toBe("string");
      await page.locator("details.payload button[data-copy]").click();
      await page.waitForFunction(() => document.activeElement?.textContent === "Copied");
      expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(record);
      const results = await new AxeBuilder({ page }).analyze();
      expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
      await page.screenshot({ path: artifactPath("dashboard-delivery-open-1280.png"), fullPage: true });
    } finally {
      await context.close();
    }
  }, 30_000);

  test("a copy button on the keys page puts the API key on the clipboard", async () => {
    const page = await dash.browser.newPage({ permissions: ["clipboard-read", "clipboard-write"] });
    try {
      await page.goto(`${url}/dashboard/keys`);
      const button = page.locator(`button[data-copy="${ctx.apiKey}"]`).first();
      await button.click();
      await page.waitForFunction(() => document.activeElement?.textContent === "Copied");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(ctx.apiKey);
    } finally {
      await page.close();
    }
  });

  test("the clock page advances the merchant's sandbox clock by a day", async () => {
    const { page } = await open("/dashboard/clock");
    try {
      const offset = ctx.deps.clock.offsetMs(ctx.merchantId);
      // The page reloads itself once the advance is answered; a second reload from here would race it.
      const reloaded = page.waitForEvent("load");
      await page.getByRole("button", { name: "+1 day" }).click();
      await reloaded;
      await waitFor(() => ctx.deps.clock.offsetMs(ctx.merchantId) === offset + 86_400_000, 5000, "the clock");
      const shown = Date.parse((await page.locator("#clock-now time").getAttribute("datetime"))!);
      expect(Math.abs(shown - ctx.deps.clock.now(ctx.merchantId).getTime())).toBeLessThan(5000);
      expect(await page.locator("main").innerText()).toMatch(/Ahead of real time\s+\d+(\.\d+)? hours/);
    } finally {
      await page.close();
    }
  });

  test("the merchant picker shows another merchant's records, and only theirs", async () => {
    const other = await otherMerchant(ctx);
    const { page } = await open("/dashboard/transactions");
    try {
      await Promise.all([page.waitForURL(`${url}/`), page.selectOption("#merchant-picker", other.id)]);
      expect(await page.locator("h1").first().innerText()).toBe("Other");
      await page.goto(`${url}/dashboard/transactions`);
      expect(await page.locator("main").innerText()).toContain("No transactions yet");
      await page.goto(`${url}/dashboard/keys`);
      expect(await page.locator("main").innerText()).toContain(other.api_key);
      await page
        .goto(`${url}/dashboard/transactions/${seeded.paidChargeId}`)
        .then((r) => expect(r?.status()).toBe(404));
      await page.selectOption("#merchant-picker", ctx.merchantId);
      await page.waitForURL(`${url}/`);
      expect(await page.locator("h1").first().innerText()).toBe("Sandbox Merchant");
    } finally {
      await page.close();
    }
  });

  test("the try it page's card frames look like its other fields: one border, the same font and height, styled through payjs's style option", async () => {
    const context = await dash.browser.newContext();
    const page = await context.newPage();
    try {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${url}/dashboard/try`);
        await page.waitForSelector("#try-it[data-ready=true]", { timeout: 15_000 });
        const month = await page.evaluate(() => {
          const input = document.querySelector<HTMLInputElement>("#try-form input[name=month]")!;
          const style = getComputedStyle(input);
          return {
            fontSize: style.fontSize,
            fontFamily: style.fontFamily,
            height: input.getBoundingClientRect().height,
          };
        });
        for (const id of ["card-number", "card-cvv"]) {
          const outside = await page.evaluate((id) => {
            const container = document.getElementById(id)!;
            const frame = container.querySelector("iframe")!;
            const border = (element: Element) => getComputedStyle(element).borderTopWidth;
            return {
              container: border(container),
              frame: border(frame),
              label: getComputedStyle(container.parentElement!).fontSize,
              height: frame.getBoundingClientRect().height,
            };
          }, id);
          // No border around the frame: the input inside draws the only one.
          expect(outside.container).toBe("0px");
          expect(outside.frame).toBe("0px");
          const inside = await page
            .frameLocator(`#${id} iframe`)
            .locator("input")
            .evaluate((input: HTMLInputElement) => {
              const style = getComputedStyle(input);
              return {
                border: style.borderTopWidth,
                fontSize: style.fontSize,
                fontFamily: style.fontFamily,
                // Set by payjs from the style option (the frame's own stylesheet says 16px).
                given: input.style.fontSize,
              };
            });
          expect(inside.border).toBe("1px");
          expect(inside.fontSize).toBe(month.fontSize);
          expect(inside.fontFamily).toBe(month.fontFamily);
          expect(inside.given).toBe(month.fontSize);
          expect(Math.abs(outside.height - month.height)).toBeLessThanOrEqual(1);
        }
        if (width === 1280) {
          const results = await new AxeBuilder({ page }).exclude("iframe").analyze();
          expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
        }
        // Keyboard: from the card number, Tab goes to the CVV frame, then to the month.
        await page.frameLocator("#card-number iframe").locator("input").focus();
        await page.keyboard.press("Tab");
        const cvvFocused = await page
          .frameLocator("#card-cvv iframe")
          .locator("input")
          .evaluate((input) => document.hasFocus() && document.activeElement === input);
        expect(cvvFocused).toBe(true);
        await page.keyboard.press("Tab");
        expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("month");
        await page.screenshot({ path: artifactPath(`dashboard-try-it-fields-${width}.png`) });
      }
    } finally {
      await context.close();
    }
  }, 40_000);

  test("the try it page takes a payment with payjs and links to the transaction", async () => {
    const { page, errors } = await open("/dashboard/try");
    try {
      await page.waitForSelector("#try-it[data-ready=true]", { timeout: 15_000 });
      await page.getByRole("button", { name: "Fill approving Visa" }).click();
      await page.waitForSelector("#try-pay:not([disabled])");
      await page.locator("#try-pay").click();
      const result = page.locator("#try-result [data-kind=ok]");
      await result.waitFor({ timeout: 15_000 });
      expect(await result.innerText()).toContain("is PAID");
      await page.screenshot({ path: artifactPath("dashboard-try-it-paid.png"), fullPage: true });
      await Promise.all([
        page.waitForURL(/\/dashboard\/transactions\//),
        page.getByText("See the transaction").click(),
      ]);
      expect(await page.locator("h1").innerText()).toContain("$10.00");
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 40_000);
});
