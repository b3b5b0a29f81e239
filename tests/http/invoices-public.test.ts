import { describe, expect, test } from "bun:test";
import { MESSAGES } from "../../packages/rules/messages";
import { DECLINE_MESSAGES } from "../../src/domain/gateway";
import { CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { holdOpen } from "../support/database";
import type { Executor } from "../../src/storage/database";

/** pay()'s extraDetails without card or bank fields. */
const DETAILS = {
  total: 25.5,
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
  address_zip: "32822",
  meta: {
    reference: "ORD-1",
    memo: "Thanks",
    subtotal: 24,
    tax: 1.5,
    lineItems: [{ id: "sku-1", item: "Gear", details: "brass", quantity: 2, price: 12 }],
    extra: { nested: [1, "two"] },
  },
};

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function createInvoice(ctx: TestContext, overrides: Record<string, unknown> = {}, pmOverrides = {}) {
  const pm = await tokenize(ctx, pmOverrides);
  const res = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: { ...DETAILS, payment_method_id: pm.id, ...overrides },
    auth: false,
  });
  return { pm, res };
}

async function payInvoice(ctx: TestContext, invoiceId: string, paymentMethodId: string, headers = {}) {
  return ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoiceId}/pay`, {
    body: { payment_method_id: paymentMethodId },
    auth: false,
    headers,
  });
}

describe("POST /webpayment/{token}/invoice", () => {
  test("creates a DRAFT web-payment invoice for the payment method's customer with every record field", async () => {
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx);
    expect(res.status).toBe(200);
    const invoice = res.body;
    expect(invoice.id).toMatch(UUID);
    expect(invoice.customer_id).toBe(pm.customer_id);
    expect(invoice.customer.id).toBe(pm.customer_id);
    expect(invoice.customer.firstname).toBe("Ada");
    expect(invoice.payment_method_id).toBe(pm.id);
    expect(invoice.child_transactions).toEqual([]);
    expect(invoice.status).toBe("DRAFT");
    expect(invoice.total).toBe(25.5);
    expect(invoice.total_paid).toBe(0);
    expect(invoice.balance_due).toBe(25.5);
    expect(invoice.is_partial_payment_enabled).toBe(false);
    expect(invoice.is_webpayment).toBe(true);
    expect(invoice.is_merchant_present).toBeNull();
    expect(invoice.payment_attempt_failed).toBe(false);
    expect(invoice.payment_attempt_message).toBe("");
    expect(invoice.meta).toEqual(DETAILS.meta);
    expect(invoice.url).toBe("http://localhost:7290/hosted/invoice/");
    expect(invoice.schedule_id).toBeNull();
    for (const field of ["created_at", "updated_at", "invoice_date_at"]) expect(invoice[field]).toMatch(TIMESTAMP);
    for (const field of ["paid_at", "due_at", "sent_at", "viewed_at", "deleted_at"]) expect(invoice[field]).toBeNull();
    // The answer is built, not read back: it is the invoice as stored.
    expect((await ctx.call("GET", `/invoice/${invoice.id}`)).body).toEqual(invoice);
  });

  test("keeps a given url and reads the public URL at request time for the default", async () => {
    const ctx = await setup();
    const given = await createInvoice(ctx, { url: "https://shop.example/invoices/" });
    expect(given.res.body.url).toBe("https://shop.example/invoices/");
    ctx.deps.publicUrl = "http://127.0.0.1:9999";
    const defaulted = await createInvoice(ctx);
    expect(defaulted.res.body.url).toBe("http://127.0.0.1:9999/hosted/invoice/");
  });

  test("uses a given customer_id of the merchant as the invoice's customer", async () => {
    const ctx = await setup();
    const customer = await ctx.call("POST", "/customer", { body: { firstname: "Grace", lastname: "Hopper" } });
    const { res } = await createInvoice(ctx, {
      customer_id: customer.body.id,
      phone: undefined,
      address_1: undefined,
      address_city: undefined,
      address_state: undefined,
    });
    expect(res.status).toBe(200);
    expect(res.body.customer_id).toBe(customer.body.id);
    expect(res.body.customer.firstname).toBe("Grace");
    expect((await ctx.call("GET", `/invoice/${res.body.id}`)).body).toEqual(res.body);
  });

  test("with invoice_id, answers the open invoice with the new payment method, as stored", async () => {
    const ctx = await setup();
    const { res } = await createInvoice(ctx);
    const other = await tokenize(ctx);
    const reused = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: { ...DETAILS, email: "other@example.com", payment_method_id: other.id, invoice_id: res.body.id },
      auth: false,
    });
    expect(reused.status).toBe(200);
    expect(reused.body.id).toBe(res.body.id);
    expect(reused.body.payment_method_id).toBe(other.id);
    expect((await ctx.call("GET", `/invoice/${res.body.id}`)).body).toEqual(reused.body);
  });

  test("paid with another customer's payment method, the invoice keeps its customer, as stored", async () => {
    const ctx = await setup();
    const customer = await ctx.call("POST", "/customer", { body: { firstname: "Grace", lastname: "Hopper" } });
    const { pm, res } = await createInvoice(ctx, { customer_id: customer.body.id });
    const paid = await payInvoice(ctx, res.body.id, pm.id);
    expect(paid.status).toBe(200);
    expect(paid.body.customer.firstname).toBe("Grace");
    expect(paid.body.child_transactions[0].payment_method.customer.firstname).toBe("Ada");
    const read = await ctx.call("GET", `/invoice/${res.body.id}`);
    expect({ ...read.body, sent_at: null }).toEqual({ ...paid.body, sent_at: null });
  });

  test("refuses a customer_id of another merchant with a per-field 422", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    const foreign = await ctx.call("POST", "/customer", { body: { firstname: "X" }, auth: other.api_key });
    const { res } = await createInvoice(ctx, { customer_id: foreign.body.id });
    expect(res.status).toBe(422);
    expect(res.body.errors.customer_id).toEqual([MESSAGES.customerNotFound]);
  });

  test("reports every broken rule per field and writes nothing", async () => {
    const ctx = await setup();
    const { res } = await createInvoice(ctx, {
      firstname: "",
      lastname: "x".repeat(51),
      phone: "123",
      address_1: undefined,
      address_city: undefined,
      address_state: "TOO",
      total: 10.555,
      meta: {
        invoice_merchant_custom_fields: [
          { id: "a", type: "text" },
          { id: "a", type: "select" },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(res.body.errors).toEqual({
      firstname: [MESSAGES.required("firstname")],
      lastname: [MESSAGES.maxLength("lastname", 50)],
      phone: [MESSAGES.minLength("phone", 10)],
      address_1: [MESSAGES.required("address_1")],
      address_city: [MESSAGES.required("address_city")],
      address_state: [MESSAGES.maxLength("address_state", 2)],
      total: [MESSAGES.totalDecimals],
      "meta.invoice_merchant_custom_fields.1.id": [MESSAGES.customFieldUnique("a")],
      "meta.invoice_merchant_custom_fields.1.type": [MESSAGES.customFieldType],
    });
    const list = await ctx.call("GET", "/invoice");
    expect(list.body.total).toBe(0);
  });

  test("refuses a total of zero or less", async () => {
    const ctx = await setup();
    for (const total of [0, -5, "0.00"]) {
      const { res } = await createInvoice(ctx, { total });
      expect(res.status).toBe(422);
      expect(res.body.errors.total).toEqual([MESSAGES.totalPositive]);
    }
  });

  test("requires address_zip with avs_zip and address_1 with avs_street, even with a customer_id", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const body = { ...DETAILS, payment_method_id: pm.id, address_zip: undefined, address_1: undefined };
    const path = `/webpayment/${ctx.token}/invoice`;
    const without = await ctx.call("POST", path, { body: { ...body, address_1: "1 Way" }, auth: false });
    expect(without.status).toBe(200);
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_zip: true, avs_street: true },
    });
    const customer = await ctx.call("POST", "/customer", { body: { firstname: "Grace" } });
    const refused = await ctx.call("POST", path, { body: { ...body, customer_id: customer.body.id }, auth: false });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({
      address_zip: [MESSAGES.required("address_zip")],
      address_1: [MESSAGES.required("address_1")],
    });
    const given = await ctx.call("POST", path, {
      body: { ...body, customer_id: customer.body.id, address_zip: "32822", address_1: "1 Way" },
      auth: false,
    });
    expect(given.status).toBe(200);
  });

  test("avs settings make tokenize require the same fields, so pay() fails before any invoice", async () => {
    const ctx = await setup();
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_zip: true, avs_street: true },
    });
    const self = await ctx.call("GET", "/self");
    expect(self.body.settings).toMatchObject({ avs_zip: true, avs_street: true });
    const res = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: { ...CARD, address_zip: undefined, address_1: undefined },
      auth: false,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.address_zip).toEqual([MESSAGES.required("address_zip")]);
    expect(res.body.errors.address_1).toEqual([MESSAGES.required("address_1")]);
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_zip: false, avs_street: false },
    });
    const relaxed = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: { ...CARD, address_zip: undefined, address_1: undefined },
      auth: false,
    });
    expect(relaxed.status).toBe(200);
  });

  test("answers 404 for a payment method of another merchant", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    const foreign = await tokenize(ctx, {}, other.web_payments_token);
    const res = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: { ...DETAILS, payment_method_id: foreign.id },
      auth: false,
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  test("answers 401 for an unknown token", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", `/webpayment/nope/invoice`, {
      body: { ...DETAILS, payment_method_id: "x" },
      auth: false,
    });
    expect(res.status).toBe(401);
  });

  test("replays the same Idempotency-Key without a second invoice, and refuses it for another body", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const path = `/webpayment/${ctx.token}/invoice`;
    const headers = { "idempotency-key": "pay-1" };
    const body = { ...DETAILS, payment_method_id: pm.id };
    const first = await ctx.call("POST", path, { body, headers, auth: false });
    const again = await ctx.call("POST", path, { body, headers, auth: false });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const conflict = await ctx.call("POST", path, { body: { ...body, total: 1 }, headers, auth: false });
    expect(conflict.status).toBe(409);
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(1);
  });
});

describe("POST /webpayment/{token}/invoice/{id}/pay", () => {
  test("charges the full balance and answers the PAID invoice with the charge first", async () => {
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx);
    const paid = await payInvoice(ctx, res.body.id, pm.id);
    expect(paid.status).toBe(200);
    const invoice = paid.body;
    expect(invoice.status).toBe("PAID");
    expect(invoice.total_paid).toBe(25.5);
    expect(invoice.balance_due).toBe(0);
    expect(invoice.paid_at).toMatch(TIMESTAMP);
    expect(invoice.payment_method_id).toBe(pm.id);
    expect(invoice.payment_attempt_failed).toBe(false);
    expect(invoice.child_transactions).toHaveLength(1);
    const charge = invoice.child_transactions[0];
    expect(charge.type).toBe("charge");
    expect(charge.success).toBe(true);
    expect(charge.total).toBe(25.5);
    expect(charge.invoice_id).toBe(invoice.id);
    expect(charge.payment_method_id).toBe(pm.id);
    expect(charge.payment_method.id).toBe(pm.id);
    expect(charge.payment_method.customer.id).toBe(invoice.customer_id);
    expect(charge.last_four).toBe("1111");
    expect(charge.meta).toEqual(DETAILS.meta);
    expect(charge.source).toBe("webpayment");
    expect(charge.is_merchant_present).toBe(false);
    // The receipt is stored with the payment: the answer already shows the invoice sent, and the
    // merchant sees the same record.
    expect(invoice.sent_at).toMatch(TIMESTAMP);
    const read = await ctx.call("GET", `/invoice/${invoice.id}`);
    expect(read.body).toEqual(invoice);
  });

  test("two pays of one invoice at once charge it once; the second is refused as PAID, on either database", async () => {
    // On PostgreSQL the second read the invoice before the first committed: both saw a balance due.
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx);
    const { invoices } = ctx.deps.services;
    const options = { source: "webpayment", isMerchantPresent: false } as const;
    const first = await holdOpen(
      (work) => ctx.deps.db.transaction(work),
      (tx: Executor) => invoices.pay(tx, ctx.merchantId, res.body.id, pm.id, options),
    );
    const second = ctx.deps.db
      .transaction((tx) => invoices.pay(tx, ctx.merchantId, res.body.id, pm.id, options))
      .then(
        () => "charged",
        (error: Error) => error.message,
      );
    await Bun.sleep(200); // the second is under way (on PostgreSQL: waiting for the first) before the first commits
    await first.commit();
    expect(await second).toBe("The invoice is PAID and cannot be paid again.");
    const invoice = (await ctx.call("GET", `/invoice/${res.body.id}`)).body;
    expect(invoice.child_transactions).toHaveLength(1);
    expect(invoice.total_paid).toBe(invoice.total);
  });

  test("answers 402 with the ATTEMPTED invoice and the decline message when the card declines", async () => {
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx, {}, { card_number: "4012888888881881" });
    const declined = await payInvoice(ctx, res.body.id, pm.id);
    expect(declined.status).toBe(402);
    expect(declined.body.code).toBe("payment_declined");
    expect(declined.body.message).toBe(DECLINE_MESSAGES.decline);
    const invoice = declined.body.invoice;
    expect(invoice.status).toBe("ATTEMPTED");
    expect(invoice.payment_attempt_failed).toBe(true);
    expect(invoice.payment_attempt_message).toBe(DECLINE_MESSAGES.decline);
    expect(invoice.total_paid).toBe(0);
    expect(invoice.balance_due).toBe(25.5);
    expect(invoice.paid_at).toBeNull();
    expect(invoice.child_transactions).toHaveLength(1);
    expect(invoice.child_transactions[0].success).toBe(false);
    // The answer is the invoice as stored (sent_at aside: a receipt may go out after the answer).
    const read = await ctx.call("GET", `/invoice/${invoice.id}`);
    expect({ ...read.body, sent_at: null }).toEqual({ ...invoice, sent_at: null });
  });

  test("pays an ATTEMPTED invoice with another method, listing the paying charge first", async () => {
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx, {}, { card_number: "4000000000009995" });
    expect((await payInvoice(ctx, res.body.id, pm.id)).status).toBe(402);
    const good = await tokenize(ctx);
    const paid = await payInvoice(ctx, res.body.id, good.id);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("PAID");
    expect(paid.body.payment_attempt_failed).toBe(false);
    expect(paid.body.payment_attempt_message).toBe("");
    expect(paid.body.payment_method_id).toBe(good.id);
    expect(paid.body.child_transactions.map((t: { success: boolean }) => t.success)).toEqual([true, false]);
    // The answer, built from what the payment read with the locked invoice and what it wrote, is
    // the invoice as stored (sent_at aside: the receipt goes out after the answer).
    const read = await ctx.call("GET", `/invoice/${res.body.id}`);
    expect({ ...read.body, sent_at: null }).toEqual({ ...paid.body, sent_at: null });
  });

  test("refuses to pay a PAID invoice again with invalid_state", async () => {
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx);
    await payInvoice(ctx, res.body.id, pm.id);
    const again = await payInvoice(ctx, res.body.id, pm.id);
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("invalid_state");
    expect((await ctx.call("GET", `/invoice/${res.body.id}`)).body.child_transactions).toHaveLength(1);
  });

  test("replays a retried pay with the same Idempotency-Key without charging twice", async () => {
    const ctx = await setup();
    const { pm, res } = await createInvoice(ctx);
    const headers = { "idempotency-key": "pay-2" };
    const first = await payInvoice(ctx, res.body.id, pm.id, headers);
    const again = await payInvoice(ctx, res.body.id, pm.id, headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const declined = await createInvoice(ctx, {}, { card_number: "4012888888881881" });
    const d1 = await payInvoice(ctx, declined.res.body.id, declined.pm.id, { "idempotency-key": "pay-3" });
    const d2 = await payInvoice(ctx, declined.res.body.id, declined.pm.id, { "idempotency-key": "pay-3" });
    expect(d2.status).toBe(402);
    expect(d2.body).toEqual(d1.body);
    const txns = await ctx.call("GET", "/transaction");
    expect(txns.body.total).toBe(2);
  });

  test("answers 404 for an invoice of another merchant", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    const { pm, res } = await createInvoice(ctx);
    const foreign = await ctx.call("POST", `/webpayment/${other.web_payments_token}/invoice/${res.body.id}/pay`, {
      body: { payment_method_id: pm.id },
      auth: false,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("not_found");
  });
});
