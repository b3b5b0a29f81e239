/**
 * The dashboard as the place an integrator acts and debugs, in real headless Chromium against a
 * served sandbox: each action is driven in the page and its record is then checked through the
 * API (capture, void, refund, receipts, webhooks, settings, keys, the clock), one action is run
 * with the keyboard only, new records appear live, and the bugs of issue 18 stay fixed.
 * One browser and one page for the whole file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { charge, tokenize, waitFor, type TestContext } from "../support/app";
import AxeBuilder from "@axe-core/playwright";
import { artifactPath, HAS_CHROMIUM } from "../support/browser";
import { startDashboardBrowser, type DashboardBrowser } from "../support/dashboard";
import type { Receiver } from "../support/webhook-receiver";

describe.skipIf(!HAS_CHROMIUM)("dashboard actions in Chromium", () => {
  let dash: DashboardBrowser;
  let ctx: TestContext;
  let url: string;
  let receiver: Receiver;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    dash = await startDashboardBrowser();
    ({ ctx, url, receiver, page, errors } = dash);
    dash.confirm = true;
  }, 60_000);

  afterAll(() => dash?.stop());

  const go = (path: string) => dash.go(path);

  /**
   * Waits for an action form's answer and returns its text and tone: the result slot's message,
   * or the errors under the fields (each shows once, there, and the slot stays empty).
   */
  async function answerOf(form: string): Promise<{ ok: boolean; text: string }> {
    const shown = page.locator(`${form} .result:not(:empty), ${form} .field-error`);
    await shown.first().waitFor({ timeout: 10_000 });
    const tone = (await page.locator(`${form} .result`).first().getAttribute("class"))!.split(" ");
    return { ok: tone.includes("ok"), text: (await shown.allInnerTexts()).join(" ") };
  }

  async function preAuth(total: number) {
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total, pre_auth: true } });
    expect(res.status).toBe(200);
    return res.body as { id: string };
  }

  test("capture part of a pre_auth: the API has the capture and the page shows the captured amount (bug: it showed the authorized total)", async () => {
    const pre = await preAuth(10);
    await go(`/dashboard/transactions/${pre.id}`);
    await page.fill("#capture-form input[name=total]", "6.00");
    await page.click("#capture-form button[type=submit]");
    await page.locator(".flash").waitFor({ timeout: 10_000 });
    expect(await page.locator(".flash").innerText()).toBe("Captured $6.00.");
    const api = (await ctx.call("GET", `/transaction/${pre.id}`)).body;
    expect(api.is_captured).toBe(true);
    expect(api.child_transactions.map((c: { type: string; total: number }) => [c.type, c.total])).toEqual([
      ["capture", 6],
    ]);
    const heading = await page.locator("h1").innerText();
    expect(heading).toContain("$6.00");
    expect(heading).toContain("partially captured");
    expect(heading).not.toContain("$10.00");
    await go("/dashboard/transactions");
    const row = await page.locator(`tr[data-id="${pre.id}"]`).innerText();
    expect(row).toContain("$6.00");
    expect(row).toContain("of $10.00 authorized");
    expect(errors).toEqual([]);
  });

  test("an action's error shows inline under the field it names, and changes nothing", async () => {
    const pre = await preAuth(10);
    await go(`/dashboard/transactions/${pre.id}`);
    await page.fill("#capture-form input[name=total]", "20");
    await page.click("#capture-form button[type=submit]");
    const answer = await answerOf("#capture-form");
    expect(answer.ok).toBe(false);
    expect(await page.locator("#capture-form .field-error").innerText()).toContain("10.00, the amount authorized");
    expect(await page.locator("#capture-form input[name=total]").getAttribute("aria-invalid")).toBe("true");
    expect((await ctx.call("GET", `/transaction/${pre.id}`)).body.is_captured).toBe(false);
  });

  test("a refund over what remains: its error shows once, under the amount, in the label's words with the $; the field is focused", async () => {
    const paid = (await charge(ctx, 10)).body;
    await ctx.deps.clock.advance(ctx.merchantId, 2 * 86_400_000);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await go(`/dashboard/transactions/${paid.id}`);
      expect(await page.locator("#refund-form label").innerText()).toContain("Refund amount ($, at most $10.00)");
      await page.fill("#refund-form input[name=total]", "50");
      await page.click("#refund-form button[type=submit]");
      const answer = await answerOf("#refund-form");
      expect(answer.ok).toBe(false);
      const said = "The refund amount may not be greater than $10.00, the amount of this transaction not yet refunded.";
      expect(answer.text).toBe(said);
      // Once: under the field, nowhere else on the page (the slot by the button stays empty).
      const main = await page.locator("main").innerText();
      expect(main.split("may not be greater than").length - 1).toBe(1);
      expect(await page.locator("#refund-form .result").innerText()).toBe("");
      const input = page.locator("#refund-form input[name=total]");
      expect(await input.getAttribute("aria-invalid")).toBe("true");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("total");
      const note = page.locator("#refund-form .field-error");
      expect(await input.getAttribute("aria-describedby")).toBe(await note.getAttribute("id"));
      // Under the field: below its box, starting at the form's left edge or the field's.
      const [field, error] = [(await input.boundingBox())!, (await note.boundingBox())!];
      expect(error.y).toBeGreaterThanOrEqual(field.y + field.height - 1);
      await page.screenshot({ path: artifactPath(`dashboard-refund-error-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    const results = await new AxeBuilder({ page }).analyze();
    expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
    expect((await ctx.call("GET", `/transaction/${paid.id}`)).body.total_refunded).toBe(0);
  }, 30_000);

  test("a capture amount with three decimals is named as its label names it", async () => {
    const pre = await preAuth(10);
    await go(`/dashboard/transactions/${pre.id}`);
    await page.fill("#capture-form input[name=total]", "1.234");
    await page.click("#capture-form button[type=submit]");
    expect((await answerOf("#capture-form")).text).toBe("The capture amount may have at most two decimal places.");
  }, 30_000);

  test("void a charge after confirming; dismissing the confirmation voids nothing", async () => {
    const paid = (await charge(ctx, 7)).body;
    await go(`/dashboard/transactions/${paid.id}`);
    dash.confirm = false;
    await page.click("#void-form button[type=submit]");
    await waitFor(() => dash.dialogs.length > 0, 5000, "the confirmation");
    expect((await ctx.call("GET", `/transaction/${paid.id}`)).body.is_voided).toBe(false);
    dash.confirm = true;
    await page.click("#void-form button[type=submit]");
    await page.locator(".flash").waitFor({ timeout: 10_000 });
    expect(await page.locator(".flash").innerText()).toBe("Voided $7.00.");
    expect(dash.dialogs.at(-1)).toContain("Void $7.00?");
    expect((await ctx.call("GET", `/transaction/${paid.id}`)).body.is_voided).toBe(true);
    expect(await page.locator("h1").innerText()).toContain("voided");
  });

  test("keyboard only: tab to the refund amount of a settled charge, type a partial amount, press Enter", async () => {
    const paid = (await charge(ctx, 20)).body;
    await ctx.deps.clock.advance(ctx.merchantId, 2 * 86_400_000);
    await go(`/dashboard/transactions/${paid.id}`);
    let reached = false;
    for (let presses = 0; presses < 120 && !reached; presses++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.matches("#refund-form input[name=total]") ?? false);
    }
    expect(reached).toBe(true);
    await page.keyboard.press("Control+A");
    await page.keyboard.type("5.25");
    await page.keyboard.press("Enter");
    const answer = await answerOf("#refund-form");
    expect(answer).toEqual({ ok: true, text: "Refunded $5.25." });
    const api = (await ctx.call("GET", `/transaction/${paid.id}`)).body;
    expect(api.total_refunded).toBe(5.25);
    expect(await page.locator("tr[data-type=refund]").innerText()).toContain("$5.25");
    // What remains is offered next.
    expect(await page.locator("#refund-form input[name=total]").inputValue()).toBe("14.75");
  });

  test("resend the receipt by e-mail and SMS: both land in the outboxes; a bad address is refused inline", async () => {
    const paid = (await charge(ctx, 12)).body;
    await go(`/dashboard/transactions/${paid.id}`);
    await page.fill("#receipt-email-form input[name=email]", "not-an-address");
    await page.click("#receipt-email-form button[type=submit]");
    expect((await answerOf("#receipt-email-form")).ok).toBe(false);
    expect(await page.locator("#receipt-email-form .field-error").count()).toBe(1);
    await page.fill("#receipt-email-form input[name=email]", "receipts@example.com");
    await page.click("#receipt-email-form button[type=submit]");
    expect(await answerOf("#receipt-email-form")).toEqual({
      ok: true,
      text: "Receipt e-mailed to receipts@example.com.",
    });
    const emails = (await ctx.call("GET", "/_sandbox/emails?to=receipts@example.com")).body;
    expect(emails.total).toBe(1);
    await page.fill("#receipt-sms-form input[name=phone]", "5555550199");
    await page.click("#receipt-sms-form button[type=submit]");
    expect((await answerOf("#receipt-sms-form")).ok).toBe(true);
    const sms = (await ctx.call("GET", "/_sandbox/sms?to=5555550199")).body;
    expect(sms.total).toBe(1);
    expect((await ctx.call("GET", `/transaction/${paid.id}`)).body.receipt_sms_at).toBeString();
  });

  test("a transaction with an invoice links to its hosted pay page, which opens", async () => {
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: {
        total: 9,
        firstname: "Ada",
        lastname: "Lovelace",
        email: "ada@example.com",
        phone: "5555550100",
        address_1: "1 Analytical Way",
        address_city: "London",
        address_state: "LN",
        address_zip: "32822",
        payment_method_id: pm.id,
      },
      auth: false,
    });
    expect(invoice.status).toBe(200);
    const paid = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    expect(paid.status).toBe(200);
    await go(`/dashboard/transactions/${paid.body.child_transactions[0].id}`);
    const link = page.getByRole("link", { name: /hosted pay page/ });
    expect(await link.getAttribute("href")).toBe(`/hosted/pay/${invoice.body.id}`);
    const [opened] = await Promise.all([page.waitForEvent("popup"), link.click()]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe(`${url}/hosted/pay/${invoice.body.id}`);
    expect(await opened.locator("body").innerText()).toContain("This invoice is PAID");
    await opened.close();
  });

  test("the method filter filters (bug: form.method.toLowerCase is not a function) and every API filter is offered", async () => {
    const bankPm = await tokenize(ctx, {
      method: "bank",
      bank_account: "9876543210",
      bank_routing: "021000021",
      bank_type: "checking",
      bank_holder_type: "personal",
      card_number: undefined,
      card_exp: undefined,
      card_cvv: undefined,
    });
    const bank = await ctx.call("POST", "/charge", { body: { payment_method_id: bankPm.id, total: 3 } });
    expect(bank.status).toBe(200);
    await go("/dashboard/transactions");
    for (const name of ["keywords", "startDate", "endDate", "type", "success", "method", "customer_id", "batch_id"]) {
      expect(await page.locator(`form.filters [name="${name}"]`).count()).toBe(1);
    }
    errors.length = 0;
    await page.selectOption("#filter-method", "bank");
    await Promise.all([page.waitForURL(/method=bank/), page.getByRole("button", { name: "Filter" }).click()]);
    expect(errors).toEqual([]);
    const ids = await page
      .locator("table.transactions tbody tr")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-id")));
    expect(ids).toEqual([bank.body.id]);
  });

  test("webhooks: add, edit, test-fire (delivery view), redeliver, disable and delete an endpoint; the API agrees at each step", async () => {
    await go("/dashboard/webhooks");
    await page.fill("#webhook-create input[name=target_url]", "ftp://example.com/hooks");
    await page.click("#webhook-create button[type=submit]");
    expect((await answerOf("#webhook-create")).ok).toBe(false);
    expect(await page.locator("#webhook-create .field-error").innerText()).toContain("http");

    await page.fill("#webhook-create input[name=target_url]", receiver.url);
    await page.selectOption("#create-event", "create_transaction");
    await page.click("#webhook-create button[type=submit]");
    expect((await answerOf("#webhook-create")).ok).toBe(true);
    const [hook] = (await ctx.call("GET", "/webhook")).body.data;
    expect(hook).toMatchObject({ target_url: receiver.url, event: "create_transaction", disabled_at: null });

    const row = `table.webhooks tr[data-id="${hook.id}"]`;
    await page.click(`${row} details summary`);
    await page.selectOption(`#edit-event-${hook.id}`, "*");
    await page.click(`#edit-${hook.id} button[type=submit]`);
    expect(await answerOf(`#edit-${hook.id}`)).toEqual({ ok: true, text: "Saved." });
    expect((await ctx.call("GET", `/webhook/${hook.id}`)).body.event).toBe("*");

    await Promise.all([
      page.waitForURL(/\/dashboard\/webhooks\/deliveries\//),
      page.locator(row).getByRole("button", { name: "Send test event" }).click(),
    ]);
    const deliveryId = page.url().split("/").at(-1)!;
    // The attempt appears live once the receiver has answered.
    await page.locator(".attempt-card").waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector(".attempt-card h3")?.textContent?.includes("HTTP 200"));
    const view = await page.locator("main").innerText();
    expect(view).toContain("PaySandbox-Signature");
    expect(view).toContain("PaySandbox-Event-Name");
    expect(view).toMatch(/content-type\s+text\/plain/);
    expect(await page.locator("pre.response-body").innerText()).toBe("ok");
    expect(view).toMatch(/Took\s+\d+ ms/);
    // Folded below the attempts; unfolded, pretty-printed: one property per line.
    await page.locator("details.payload summary").click();
    expect(await page.locator("details.payload pre").innerText()).toContain('\n  "test": true,\n');
    const sent = receiver.received.find((r) => r.deliveryId === deliveryId)!;
    expect(view).toContain(sent.signature!);
    const delivery = (await ctx.call("GET", `/_sandbox/webhook-deliveries/${deliveryId}`)).body;
    expect(delivery).toMatchObject({ status: "delivered", event: "test" });

    await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Redeliver" }).first().click()]);
    const redelivered = await waitFor(async () => {
      const list = (await ctx.call("GET", `/webhook/${hook.id}/deliveries`)).body.data;
      return list.find((d: { redelivery_of: string | null }) => d.redelivery_of === deliveryId);
    });
    expect(redelivered.event).toBe("test");

    await go("/dashboard/webhooks");
    await page.locator(row).getByRole("button", { name: "Disable" }).click();
    // The button became "Enable", so the answer shows at the top of the page.
    await page.locator(".flash").waitFor({ timeout: 10_000 });
    expect(await page.locator(".flash").innerText()).toBe("Disabled: it receives nothing new.");
    expect((await ctx.call("GET", `/webhook/${hook.id}`)).body.disabled_at).toBeString();
    expect(await page.locator(row).getAttribute("data-state")).toBe("disabled");

    dash.confirm = true;
    await Promise.all([page.waitForEvent("load"), page.locator(row).getByRole("button", { name: "Delete" }).click()]);
    expect((await ctx.call("GET", `/webhook/${hook.id}`)).body.deleted_at).toBeString();
    expect(await page.locator(row).count()).toBe(0);
  }, 40_000);

  test("new e-mails and webhook deliveries appear on their open pages without a reload", async () => {
    const hook = await ctx.call("POST", "/webhook", { body: { target_url: receiver.url, event: "create_customer" } });
    expect(hook.status).toBe(200);
    const paid = (await charge(ctx, 4)).body;
    await go("/dashboard/emails");
    await page.waitForSelector("#live.on");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await ctx.call("POST", `/transaction/${paid.id}/receipt-email`, { body: { email: "live-mail@example.com" } });
    await page.getByText("live-mail@example.com").first().waitFor({ timeout: 10_000 });

    await go("/dashboard/webhooks?event=create_customer");
    await page.waitForSelector("#live.on");
    const before = await page.locator("table.deliveries tbody tr").count();
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    const customer = await ctx.call("POST", "/customer", {
      body: { firstname: "Live", lastname: "Customer", email: "live-customer@example.com" },
    });
    expect(customer.status).toBe(200);
    await page.waitForFunction((n) => document.querySelectorAll("table.deliveries tbody tr").length === n + 1, before, {
      timeout: 10_000,
    });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await ctx.call("DELETE", `/webhook/${hook.body.id}`);
  });

  test("settings: a bad value gets a message under its field; saved settings change what the API does", async () => {
    await go("/dashboard/settings");
    await page.fill("#settings-form input[name=ach_settlement_days]", "11");
    await page.click("#settings-form button[type=submit]");
    expect((await answerOf("#settings-form")).ok).toBe(false);
    expect(await page.locator("#settings-form .field-error").innerText()).toContain("0 to 10");
    await page.check("#settings-form input[name=avs_zip]");
    await page.fill("#settings-form input[name=ach_settlement_days]", "3");
    await page.click("#settings-form button[type=submit]");
    expect(await answerOf("#settings-form")).toEqual({ ok: true, text: "Settings saved." });
    const self = (await ctx.call("GET", "/self")).body;
    expect(self.settings).toMatchObject({ avs_zip: true, ach_settlement_days: 3 });
    const noZip = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: {
        method: "card",
        card_number: "4111111111111111",
        card_cvv: "123",
        card_exp: "1230",
        person_name: "Ada Lovelace",
        firstname: "Ada",
        lastname: "Lovelace",
        email: "ada@example.com",
      },
      auth: false,
    });
    expect(noZip.status).toBe(422);
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body: { avs_zip: false }, auth: false });
  });

  test("settings: custom fields are added, edited and removed with messages under their fields, as the API then shows", async () => {
    await go("/dashboard/settings");
    await page.check("#settings-form input[name=advanced_customization]");
    await page.click("#settings-form button[type=submit]");
    expect(await answerOf("#settings-form")).toEqual({ ok: true, text: "Settings saved." });
    // Bad: an id with a space and no name. Each message lands under its own field.
    await page.fill("#custom-field-new input[name=id]", "po number");
    await page.click("#custom-field-new button[type=submit]");
    expect((await answerOf("#custom-field-new")).ok).toBe(false);
    expect(await page.locator("#custom-field-new-id-error").innerText()).toContain("may only contain");
    expect(await page.locator("#custom-field-new-name-error").innerText()).toContain("name (its label) is required");
    expect(await page.locator("#custom-field-new input[name=name]").getAttribute("aria-invalid")).toBe("true");
    expect((await ctx.call("GET", "/self")).body.settings.custom_fields).toEqual([]);
    // Good: a required, visible field, then a merchant-only one.
    await page.fill("#custom-field-new input[name=id]", "po_number");
    await page.fill("#custom-field-new input[name=name]", "PO number");
    await page.fill("#custom-field-new input[name=placeholder]", "Ex. PO-123");
    await page.check("#custom-field-new input[name=required]");
    await page.click("#custom-field-new button[type=submit]");
    expect(await answerOf("#custom-field-new")).toEqual({ ok: true, text: "Custom field added." });
    await page.fill("#custom-field-new input[name=id]", "internal");
    await page.fill("#custom-field-new input[name=name]", "Internal code");
    await page.uncheck("#custom-field-new input[name=visible]");
    await page.click("#custom-field-new button[type=submit]");
    expect(await answerOf("#custom-field-new")).toEqual({ ok: true, text: "Custom field added." });
    expect((await ctx.call("GET", "/self")).body.settings.custom_fields).toEqual([
      { id: "po_number", name: "PO number", placeholder: "Ex. PO-123", required: true, type: "text", visible: true },
      { id: "internal", name: "Internal code", placeholder: "", required: false, type: "text", visible: false },
    ]);
    // Edit: a duplicate id is refused under the id; a new label is saved in place.
    await page.fill("#custom-field-1 input[name=id]", "po_number");
    await page.click("#custom-field-1 button[type=submit]");
    expect(await page.locator("#custom-field-1-id-error").innerText()).toContain("already used");
    await page.fill("#custom-field-0 input[name=name]", "Purchase order");
    await page.click("#custom-field-0 button[type=submit]");
    expect(await answerOf("#custom-field-0")).toEqual({ ok: true, text: "Custom field saved." });
    const fields = (await ctx.call("GET", "/self")).body.settings.custom_fields;
    expect(fields.map((f: { id: string; name: string }) => [f.id, f.name])).toEqual([
      ["po_number", "Purchase order"],
      ["internal", "Internal code"],
    ]);
    // What it changes: POST /invoice needs the required field's value now.
    const customer = await ctx.call("POST", "/customer", {
      body: { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com" },
    });
    const refused = await ctx.call("POST", "/invoice", { body: { customer_id: customer.body.id, total: 5 } });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["meta.invoice_merchant_custom_fields.po_number"]);
    // Remove (confirmed first).
    await page.click("#custom-field-1-delete button[type=submit]");
    await page.locator(".flash").waitFor({ timeout: 10_000 });
    expect(await page.locator(".flash").innerText()).toBe("Custom field internal removed.");
    expect(dash.dialogs.at(-1)).toContain("Remove the custom field internal?");
    expect((await ctx.call("GET", "/self")).body.settings.custom_fields.map((f: { id: string }) => f.id)).toEqual([
      "po_number",
    ]);
    expect(await page.locator("#custom-field-1").count()).toBe(0);
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { custom_fields: [], advanced_customization: false },
      auth: false,
    });
    // The refused submissions' 422s are the only console lines.
    expect(errors.filter((e) => !e.includes("status of 422"))).toEqual([]);
  }, 60_000);

  test("settings: receipt options are validated inline and, saved, go on the next receipt e-mail", async () => {
    await go("/dashboard/settings");
    await page.fill("#receipt-form input[name=receipt_reply_to]", "not-an-address");
    await page.fill("#receipt-form input[name=receipt_cc]", "books@example.com, nope");
    await page.click("#receipt-form button[type=submit]");
    expect((await answerOf("#receipt-form")).ok).toBe(false);
    expect(await page.locator("#receipt-form-receipt_reply_to-error").innerText()).toContain("valid email");
    expect(await page.locator("#receipt-form-receipt_cc-error").innerText()).toContain('"nope"');
    expect((await ctx.call("GET", "/self")).body.settings.receipt_cc).toEqual([]);
    await page.fill("#receipt-form input[name=receipt_reply_to]", "billing@example.com");
    await page.fill("#receipt-form input[name=receipt_cc]", "books@example.com, owner@example.com");
    await page.fill("#receipt-form textarea[name=receipt_footer]", "Returns within 30 days.");
    await page.uncheck("#receipt-form input[name=receipt_send_declined]");
    await page.click("#receipt-form button[type=submit]");
    expect(await answerOf("#receipt-form")).toEqual({ ok: true, text: "Receipt options saved." });
    expect((await ctx.call("GET", "/self")).body.settings).toMatchObject({
      receipt_reply_to: "billing@example.com",
      receipt_cc: ["books@example.com", "owner@example.com"],
      receipt_footer: "Returns within 30 days.",
      receipt_send_declined: false,
    });
    const paid = (await charge(ctx, 4)).body;
    const sent = await ctx.call("POST", `/transaction/${paid.id}/receipt-email`, {
      body: { email: "ada@example.com" },
    });
    expect(sent.status).toBe(200);
    const email = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(email.cc).toEqual(["books@example.com", "owner@example.com"]);
    expect(email.reply_to).toBe("billing@example.com");
    expect(email.text).toContain("Returns within 30 days.");
    // Clearing a field clears the option.
    await go("/dashboard/settings");
    await page.fill("#receipt-form input[name=receipt_cc]", "");
    await page.check("#receipt-form input[name=receipt_send_declined]");
    await page.click("#receipt-form button[type=submit]");
    expect(await answerOf("#receipt-form")).toEqual({ ok: true, text: "Receipt options saved." });
    expect((await ctx.call("GET", "/self")).body.settings).toMatchObject({
      receipt_cc: [],
      receipt_send_declined: true,
    });
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { receipt_reply_to: "", receipt_footer: "" },
      auth: false,
    });
    // The refused submissions' 422s are the only console lines.
    expect(errors.filter((e) => !e.includes("status of 422"))).toEqual([]);
  }, 60_000);

  test("the header's clock control advances the sandbox clock from a page other than the clock page", async () => {
    await go("/dashboard/customers");
    const offset = ctx.deps.clock.offsetMs(ctx.merchantId);
    await page.selectOption("#header-clock-step", String(86_400));
    await Promise.all([page.waitForEvent("load"), page.click(".clock-control button[type=submit]")]);
    expect(page.url()).toBe(`${url}/dashboard/customers`);
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(offset + 86_400_000);
    const shown = await page.locator("#header-clock time").getAttribute("datetime");
    expect(Math.abs(Date.parse(shown!) - ctx.deps.clock.now(ctx.merchantId).getTime())).toBeLessThan(10_000);
  });

  test("regenerating the keys asks first; confirmed, the old API key is refused and the new one shown works", async () => {
    const old = ctx.apiKey;
    await go("/dashboard/keys");
    const regenerate = page.getByRole("button", { name: "Regenerate API key and token" });
    dash.confirm = false;
    await regenerate.click();
    await waitFor(() => dash.dialogs.at(-1)?.includes("stop working"), 5000, "the confirmation");
    expect((await ctx.call("GET", "/self", { auth: old })).status).toBe(200);
    dash.confirm = true;
    await regenerate.click();
    await page.locator("form .result.ok").waitFor({ timeout: 10_000 });
    const shown = await page.getByRole("button", { name: "Copy API key" }).first().getAttribute("data-copy");
    expect(shown).not.toBe(old);
    expect((await ctx.call("GET", "/self", { auth: old })).status).toBe(401);
    expect((await ctx.call("GET", "/self", { auth: shown! })).status).toBe(200);
    ctx.apiKey = shown!;
    ctx.token = (await ctx.call("GET", "/self")).body.web_payments_token;
  });
});
