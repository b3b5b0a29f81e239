import { sql } from "../../src/storage/database";
import { describe, expect, test } from "bun:test";
import { MESSAGES } from "../../packages/rules/messages";
import { DECLINE_MESSAGES } from "../../src/domain/gateway";
import type { SandboxEvent } from "../../src/domain/events";
import { otherMerchant, setup, tokenize, type TestContext } from "../support/app";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const META = {
  reference: "INV-7",
  memo: "Consulting",
  subtotal: 90,
  tax: 10,
  lineItems: [{ item: "Hours", details: "analysis", quantity: 3, price: 30 }],
  invoice_merchant_custom_fields: [{ id: "po", name: "PO", value: "77", type: "text", visible: true }],
  anything: { else: [true, null, 1.5] },
};

async function customer(ctx: TestContext, fields: Record<string, unknown> = {}) {
  const res = await ctx.call("POST", "/customer", {
    body: { firstname: "Grace", lastname: "Hopper", email: "grace@example.com", phone: "5555550123", ...fields },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body;
}

async function createInvoice(ctx: TestContext, body: Record<string, unknown> = {}) {
  const c = body.customer_id ? null : await customer(ctx);
  return ctx.call("POST", "/invoice", { body: { customer_id: c?.id, total: 100, meta: META, ...body } });
}

/** Records every event the services emit (names only, in order). */
function recordEvents(ctx: TestContext): SandboxEvent[] {
  const seen: SandboxEvent[] = [];
  ctx.deps.events.on((_ex, event) => void seen.push(event));
  return seen;
}

describe("POST /invoice and GET /invoice/{id}", () => {
  test("creates a DRAFT invoice for a customer with every field of the record", async () => {
    const ctx = await setup();
    const c = await customer(ctx);
    const res = await createInvoice(ctx, { customer_id: c.id, due_at: "2030-01-31" });
    expect(res.status).toBe(200);
    const inv = res.body;
    expect(inv).toMatchObject({
      customer_id: c.id,
      payment_method_id: null,
      child_transactions: [],
      status: "DRAFT",
      total: 100,
      total_paid: 0,
      balance_due: 100,
      is_partial_payment_enabled: false,
      is_webpayment: false,
      is_merchant_present: true,
      payment_attempt_failed: false,
      payment_attempt_message: "",
      meta: META,
      url: "http://localhost:7290/hosted/invoice/",
      schedule_id: null,
      due_at: "2030-01-31 00:00:00",
      paid_at: null,
      sent_at: null,
      viewed_at: null,
      deleted_at: null,
    });
    expect(inv.customer).toEqual(c);
    for (const field of ["created_at", "updated_at", "invoice_date_at"]) expect(inv[field]).toMatch(TIMESTAMP);
    const read = await ctx.call("GET", `/invoice/${inv.id}`);
    expect(read.body).toEqual(inv);
  });

  test("reports broken rules per field: unknown customer, total, e-mail, custom fields, due_at", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    const foreign = await ctx.call("POST", "/customer", { body: { firstname: "X" }, auth: other.api_key });
    const res = await ctx.call("POST", "/invoice", {
      body: {
        customer_id: foreign.body.id,
        total: "12.345",
        email: "not-an-email",
        due_at: "tomorrow",
        meta: { invoice_merchant_custom_fields: [{ name: "no id" }], lineItems: "nope" },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      customer_id: [MESSAGES.customerNotFound],
      email: [MESSAGES.email],
      total: [MESSAGES.totalDecimals],
      "meta.lineItems": [MESSAGES.lineItemsArray],
      "meta.invoice_merchant_custom_fields.0.id": [MESSAGES.customFieldId],
      due_at: ["The due_at must be a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DD HH:MM:SS)."],
    });
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(0);
  });

  test("is invisible to other merchants and to the public token", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const other = await otherMerchant(ctx);
    expect((await ctx.call("GET", `/invoice/${inv.id}`, { auth: other.api_key })).status).toBe(404);
    expect((await ctx.call("GET", "/invoice", { auth: other.api_key })).body.total).toBe(0);
    expect((await ctx.call("GET", `/invoice/${inv.id}`, { auth: ctx.token })).status).toBe(403);
    expect((await ctx.call("GET", `/invoice/${inv.id}`, { auth: false })).status).toBe(401);
  });
});

describe("GET /invoice", () => {
  test("lists newest first in the page envelope, filtered by status and customer", async () => {
    const ctx = await setup();
    const a = await customer(ctx);
    const b = await customer(ctx, { firstname: "Bob", email: "bob@example.com" });
    const first = (await createInvoice(ctx, { customer_id: a.id, total: 1 })).body;
    const second = (await createInvoice(ctx, { customer_id: b.id, total: 2 })).body;
    const pm = await tokenize(ctx);
    await ctx.call("POST", `/invoice/${second.id}/pay`, { body: { payment_method_id: pm.id } });
    const page = await ctx.call("GET", "/invoice?per_page=1");
    expect(page.body).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 });
    expect(page.body.data[0].id).toBe(second.id);
    expect(page.body.next_page_url).toContain("page=2");
    const paid = await ctx.call("GET", "/invoice?status=PAID");
    expect(paid.body.data.map((i: { id: string }) => i.id)).toEqual([second.id]);
    const ofA = await ctx.call("GET", `/invoice?customer_id=${a.id}`);
    expect(ofA.body.data.map((i: { id: string }) => i.id)).toEqual([first.id]);
  });
});

describe("POST /invoice/{id}/pay", () => {
  test("charges the balance, answering the PAID invoice; events create_invoice then update_invoice", async () => {
    const ctx = await setup();
    const events = recordEvents(ctx);
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx);
    const paid = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      status: "PAID",
      total_paid: 100,
      balance_due: 0,
      payment_method_id: pm.id,
      payment_attempt_failed: false,
    });
    expect(paid.body.paid_at).toMatch(TIMESTAMP);
    const charge = paid.body.child_transactions[0];
    expect(charge).toMatchObject({ type: "charge", success: true, total: 100, invoice_id: inv.id, source: "api" });
    expect(charge.is_merchant_present).toBe(true);
    const names = events.map((e) => e.name);
    expect(names).toEqual([
      "create_customer",
      "create_invoice",
      "create_customer",
      "create_payment_method",
      "create_transaction",
      "update_invoice",
    ]);
    const update = events.at(-1)!.record as unknown as { status: string };
    expect(update.status).toBe("PAID");
  });

  test("a decline answers 402 with the invoice ATTEMPTED; a later good card pays it", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const bad = await tokenize(ctx, { card_number: "5105105105105100" });
    const declined = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: bad.id } });
    expect(declined.status).toBe(402);
    expect(declined.body.invoice).toMatchObject({
      status: "ATTEMPTED",
      payment_attempt_failed: true,
      payment_attempt_message: DECLINE_MESSAGES.decline,
      payment_method_id: bad.id,
      total_paid: 0,
      balance_due: 100,
      paid_at: null,
    });
    const good = await tokenize(ctx);
    const paid = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: good.id } });
    expect(paid.body.status).toBe("PAID");
    expect(paid.body.child_transactions).toHaveLength(2);
    expect(paid.body.child_transactions[0].success).toBe(true);
  });

  test("refuses an unknown payment method (404) and a second payment (422 invalid_state), writing nothing", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const missing = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: "nope" } });
    expect(missing.status).toBe(404);
    const pm = await tokenize(ctx);
    await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    const again = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("invalid_state");
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(1);
    expect((await ctx.call("POST", `/invoice/nope/pay`, { body: { payment_method_id: pm.id } })).status).toBe(404);
  });
});

describe("DELETE /invoice/{id}", () => {
  test("soft-deletes an unpaid invoice, which stays readable and can no longer be paid", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const events = recordEvents(ctx);
    const deleted = await ctx.call("DELETE", `/invoice/${inv.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ status: "DELETED", balance_due: 0 });
    expect(deleted.body.deleted_at).toMatch(TIMESTAMP);
    expect(events.map((e) => e.name)).toEqual(["update_invoice"]);
    expect((await ctx.call("GET", `/invoice/${inv.id}`)).body.status).toBe("DELETED");
    const pm = await tokenize(ctx);
    const pay = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(pay.status).toBe(422);
    expect(pay.body.code).toBe("invalid_state");
    expect((await ctx.call("DELETE", `/invoice/${inv.id}`)).status).toBe(200);
  });

  test("refuses to delete a paid invoice, and another merchant's", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const other = await otherMerchant(ctx);
    expect((await ctx.call("DELETE", `/invoice/${inv.id}`, { auth: other.api_key })).status).toBe(404);
    const pm = await tokenize(ctx);
    await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    const refused = await ctx.call("DELETE", `/invoice/${inv.id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("invalid_state");
    expect((await ctx.call("GET", `/invoice/${inv.id}`)).body.status).toBe("PAID");
  });
});

describe("the invoice follows its transactions", () => {
  test("POST /charge with invoice_id pays the invoice through the same logic", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx);
    const charge = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 100, invoice_id: inv.id },
    });
    expect(charge.status).toBe(200);
    const read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "PAID", total_paid: 100, balance_due: 0, payment_method_id: pm.id });
    expect(read.child_transactions[0].id).toBe(charge.body.id);
  });

  test("a declined POST /charge with invoice_id marks the invoice ATTEMPTED; a partial one leaves a balance", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const bad = await tokenize(ctx, { card_number: "4000000000000069" });
    const declined = await ctx.call("POST", "/charge", {
      body: { payment_method_id: bad.id, total: 100, invoice_id: inv.id },
    });
    expect(declined.status).toBe(402);
    let read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "ATTEMPTED", payment_attempt_message: DECLINE_MESSAGES.expired_card });
    const pm = await tokenize(ctx);
    await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 40, invoice_id: inv.id } });
    read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "ATTEMPTED", total_paid: 40, balance_due: 60, payment_attempt_failed: false });
    const rest = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(rest.body).toMatchObject({ status: "PAID", total_paid: 100, balance_due: 0 });
    expect(rest.body.child_transactions[1].total).toBe(60);
  });

  test("a pre_auth pays the invoice only once captured", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx);
    const auth = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 100, pre_auth: true, invoice_id: inv.id },
    });
    expect((await ctx.call("GET", `/invoice/${inv.id}`)).body).toMatchObject({ status: "DRAFT", total_paid: 0 });
    const captured = await ctx.call("POST", `/transaction/${auth.body.id}/capture`, { body: {} });
    expect(captured.status).toBe(200);
    expect((await ctx.call("GET", `/invoice/${inv.id}`)).body).toMatchObject({ status: "PAID", total_paid: 100 });
  });

  test("a void of the paying charge makes the invoice VOIDED and emits update_invoice", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx);
    const paid = (await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } })).body;
    const events = recordEvents(ctx);
    const voided = await ctx.call("POST", `/transaction/${paid.child_transactions[0].id}/void`, { body: {} });
    expect(voided.status).toBe(200);
    const read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "VOIDED", total_paid: 0, balance_due: 0 });
    expect(read.paid_at).toBe(paid.paid_at);
    expect(read.child_transactions[0].is_voided).toBe(true);
    expect(read.child_transactions[0].child_transactions[0].type).toBe("void");
    expect(events.map((e) => e.name)).toEqual(["update_transaction", "update_invoice"]);
    // Nothing can be paid on it any more.
    const again = await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(again.body.code).toBe("invalid_state");
  });

  test("refunds after settlement make it PARTIALLY_REFUNDED, then REFUNDED", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx);
    const paid = (await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } })).body;
    const chargeId = paid.child_transactions[0].id;
    await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 2 * 86_400 } });
    const part = await ctx.call("POST", `/transaction/${chargeId}/refund`, { body: { total: 25 } });
    expect(part.status).toBe(200);
    let read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "PARTIALLY_REFUNDED", total_paid: 75, balance_due: 0 });
    expect(read.child_transactions[0].total_refunded).toBe(25);
    await ctx.call("POST", `/transaction/${chargeId}/refund`, { body: {} });
    read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "REFUNDED", total_paid: 0, balance_due: 0 });
  });

  test("the listener also follows a refund row written the way issue 5's refund writes it", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx);
    const paid = (await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } })).body;
    const { db, services, events, clock } = ctx.deps;
    const chargeId = paid.child_transactions[0].id;
    await db.transaction(async (tx) => {
      const now = clock.timestamp(ctx.merchantId);
      await tx.run(
        sql`INSERT INTO transactions (id, merchant_id, parent_id, customer_id, payment_method_id, method, type, success, total_cents, created_at, updated_at)
         SELECT ${crypto.randomUUID()}, merchant_id, id, customer_id, payment_method_id, method, 'refund', 1, 1000, ${now}, ${now} FROM transactions WHERE id = ${chargeId}`,
      );
      await tx.run(sql`UPDATE transactions SET total_refunded_cents = 1000 WHERE id = ${chargeId}`);
      await events.emit(tx, {
        merchantId: ctx.merchantId,
        name: "update_transaction",
        record: await services.transactions.get(ctx.merchantId, chargeId, tx),
      });
    });
    const read = (await ctx.call("GET", `/invoice/${inv.id}`)).body;
    expect(read).toMatchObject({ status: "PARTIALLY_REFUNDED", total_paid: 90 });
  });
});

describe("pay() of an existing invoice (the hosted payment page's invoice_id)", () => {
  test("reuses the open invoice instead of creating one, then pays it", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx, { customer_id: inv.customer_id });
    const step3 = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: {
        payment_method_id: pm.id,
        invoice_id: inv.id,
        customer_id: inv.customer_id,
        total: "100.00",
        firstname: "G",
        lastname: "H",
      },
      auth: false,
    });
    expect(step3.status).toBe(200);
    expect(step3.body.id).toBe(inv.id);
    expect(step3.body.payment_method_id).toBe(pm.id);
    expect(step3.body.meta).toEqual(META);
    const step4 = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${inv.id}/pay`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    expect(step4.body.status).toBe("PAID");
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(1);
  });

  test("refuses a total other than the balance, and a paid invoice", async () => {
    const ctx = await setup();
    const inv = (await createInvoice(ctx)).body;
    const pm = await tokenize(ctx, { customer_id: inv.customer_id });
    const body = {
      payment_method_id: pm.id,
      invoice_id: inv.id,
      customer_id: inv.customer_id,
      firstname: "G",
      lastname: "H",
    };
    const path = `/webpayment/${ctx.token}/invoice`;
    const wrong = await ctx.call("POST", path, { body: { ...body, total: 99 }, auth: false });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.total).toEqual([MESSAGES.invoiceTotalMismatch("100.00")]);
    await ctx.call("POST", `/invoice/${inv.id}/pay`, { body: { payment_method_id: pm.id } });
    const paid = await ctx.call("POST", path, { body: { ...body, total: 100 }, auth: false });
    expect(paid.status).toBe(422);
    expect(paid.body.code).toBe("invalid_state");
    const unknown = await ctx.call("POST", path, { body: { ...body, invoice_id: "nope", total: 100 }, auth: false });
    expect(unknown.status).toBe(404);
  });
});
