/**
 * POST /invoice/{id}/pay/{method} (issue 28): an invoice marked paid in cash or by check. Nothing
 * is charged; the payment is recorded, shown on the dashboard, and counts toward total_paid.
 */
import { describe, expect, test } from "bun:test";
import type { SandboxEvent } from "../../src/domain/events";
import { OUTSIDE_PAYMENT_MESSAGES } from "../../src/services/invoices/outside-payments";
import { otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { realOperation, shapeDifferences } from "../support/real-api";

/** The real invoice's fields the sandbox does not keep (as in real-api-invoices.test.ts). */
const INVOICE_GAPS = [
  "missing: files",
  "missing: merchant_id",
  "missing: payment_meta",
  "missing: reminder",
  "missing: reminder_id",
  "missing: user",
  "missing: user_id",
];

async function invoiceFor(ctx: TestContext, body: Record<string, unknown> = {}) {
  const customer = await ctx.call("POST", "/customer", {
    body: { firstname: "Grace", lastname: "Hopper", email: "grace@example.com" },
  });
  const res = await ctx.call("POST", "/invoice", { body: { customer_id: customer.body.id, total: 100, ...body } });
  expect(res.status).toBe(200);
  return res.body;
}

describe("POST /invoice/{id}/pay/{method}", () => {
  test("cash for the balance makes the invoice PAID with no transaction charged, in the real invoice shape", async () => {
    const ctx = await setup();
    const invoice = await invoiceFor(ctx);
    const events: SandboxEvent[] = [];
    ctx.deps.events.on((_ex, event) => void events.push(event));
    const res = await ctx.call(
      "POST",
      `/invoice/${invoice.id}/pay/cash?payment_note=${encodeURIComponent("At the desk")}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invoice.id, status: "PAID", total_paid: 100, balance_due: 0 });
    expect(res.body.paid_at).not.toBeNull();
    expect(res.body.child_transactions).toEqual([]);
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(0);
    const example = realOperation("POST", "/invoice/{id}/pay").example;
    // Paid in cash: no payment method paid it.
    expect(shapeDifferences(res.body, example, 0).filter((d) => !INVOICE_GAPS.includes(d))).toEqual([
      "type: payment_method_id real string, ours null",
    ]);
    expect(events.map((e) => e.name)).toEqual(["update_invoice"]);
    expect(events[0]!.record).toEqual((await ctx.call("GET", `/invoice/${invoice.id}`)).body);

    const page = await ctx.call("GET", `/dashboard/invoices/${invoice.id}`, { auth: false });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Paid outside the sandbox");
    expect(page.body).toContain("At the desk");
  });

  test("a check for part of a partial-payment invoice, then a card for the rest: PAID at 100.00", async () => {
    const ctx = await setup();
    const invoice = await invoiceFor(ctx, { is_partial_payment_enabled: true });
    // The check number in the JSON body: a body may carry what the real query does.
    const part = await ctx.call("POST", `/invoice/${invoice.id}/pay/check?apply_balance=40.00`, {
      body: { check_number: "1042" },
    });
    expect(part.status).toBe(200);
    expect(part.body).toMatchObject({ status: "DRAFT", total_paid: 40, balance_due: 60 });
    const pm = await tokenize(ctx);
    const rest = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 60, invoice_id: invoice.id },
    });
    expect(rest.status).toBe(200);
    const paid = (await ctx.call("GET", `/invoice/${invoice.id}`)).body;
    expect(paid).toMatchObject({ status: "PAID", total_paid: 100, balance_due: 0 });
    const page = await ctx.call("GET", `/dashboard/invoices/${invoice.id}`, { auth: false });
    expect(page.body).toContain("1042");
  });

  test("refuses a part payment the invoice does not take, more than is due, and a paid, deleted or unknown invoice", async () => {
    const ctx = await setup();
    const invoice = await invoiceFor(ctx);
    const part = await ctx.call("POST", `/invoice/${invoice.id}/pay/cash?apply_balance=40`);
    expect(part.status).toBe(422);
    expect(part.body.errors.apply_balance).toEqual([OUTSIDE_PAYMENT_MESSAGES.notPartial("100.00")]);
    const over = await ctx.call("POST", `/invoice/${invoice.id}/pay/cash?apply_balance=100.01`);
    expect(over.body.errors.apply_balance).toEqual([OUTSIDE_PAYMENT_MESSAGES.tooMuch("100.00")]);
    for (const query of ["apply_balance=0", "apply_balance=abc", "apply_balance=1.234", "email_receipt=maybe"]) {
      expect((await ctx.call("POST", `/invoice/${invoice.id}/pay/cash?${query}`)).status).toBe(422);
    }
    expect((await ctx.call("POST", `/invoice/${invoice.id}/pay/giftcard`)).status).toBe(422);
    expect((await ctx.call("POST", "/invoice/nope/pay/cash")).status).toBe(404);
    const other = await otherMerchant(ctx);
    const foreign = await ctx.call("POST", `/invoice/${invoice.id}/pay/cash`, { auth: other.api_key });
    expect(foreign.status).toBe(404);
    // Nothing of the refusals was written.
    expect((await ctx.call("GET", `/invoice/${invoice.id}`)).body).toMatchObject({ status: "DRAFT", total_paid: 0 });

    expect((await ctx.call("POST", `/invoice/${invoice.id}/pay/cash?email_receipt=1`)).status).toBe(200);
    const again = await ctx.call("POST", `/invoice/${invoice.id}/pay/check`);
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("invalid_state");
    const fresh = await invoiceFor(ctx);
    expect((await ctx.call("DELETE", `/invoice/${fresh.id}`)).status).toBe(200);
    const deleted = await ctx.call("POST", `/invoice/${fresh.id}/pay/cash`);
    expect(deleted.status).toBe(422);
    expect(deleted.body.message).toBe("The invoice was deleted.");
  });

  test("the reset takes a merchant's outside payments with its invoices", async () => {
    const ctx = await setup();
    const invoice = await invoiceFor(ctx);
    expect((await ctx.call("POST", `/invoice/${invoice.id}/pay/cash`)).status).toBe(200);
    expect((await ctx.call("POST", "/_sandbox/reset", { auth: false, body: {} })).status).toBe(200);
    expect((await ctx.call("GET", `/invoice/${invoice.id}`)).status).toBe(404);
  });
});
