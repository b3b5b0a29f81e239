import { beforeEach, describe, expect, test } from "bun:test";
import { DECLINE_MESSAGES, BANK_DECLINE_MESSAGE } from "../../src/domain/gateway";
import { MESSAGES } from "../../packages/rules/messages";
import { BANK, charge, setup, tokenize, type TestContext } from "../support/app";
import { sql } from "../../src/storage/database";
import { countRows } from "../support/database";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

/** Every field docs/contract.md §6 lists for a transaction record. */
const TRANSACTION_FIELDS = [
  "id",
  "invoice_id",
  "customer_id",
  "payment_method_id",
  "payment_method",
  "method",
  "type",
  "success",
  "total",
  "last_four",
  "auth_id",
  "issuer_auth_code",
  "message",
  "meta",
  "is_manual",
  "is_merchant_present",
  "receipt_email_at",
  "receipt_sms_at",
  "reference_id",
  "source",
  "created_at",
  "updated_at",
  "pre_auth",
  "is_captured",
  "total_refunded",
  "is_refundable",
  "is_voidable",
  "is_voided",
  "batch_id",
  "settled_at",
  "child_transactions",
];
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe("POST /charge", () => {
  test("an approved charge answers 200 with the full transaction record", async () => {
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", {
      body: { payment_method_id: pm.id, total: 10.5, meta: { tax: 0.5, subtotal: 10 } },
    });
    expect(res.status).toBe(200);
    const tx = res.body;
    for (const field of TRANSACTION_FIELDS) expect(tx).toHaveProperty(field);
    expect(tx).toMatchObject({
      payment_method_id: pm.id,
      customer_id: pm.customer_id,
      payment_method: { id: pm.id, customer: { id: pm.customer_id } },
      method: "card",
      type: "charge",
      success: true,
      total: 10.5,
      last_four: "1111",
      message: null,
      meta: { tax: 0.5, subtotal: 10 },
      is_manual: false,
      pre_auth: false,
      is_captured: false,
      total_refunded: 0,
      is_voided: false,
      is_voidable: true,
      is_refundable: false,
      batch_id: null,
      settled_at: null,
      receipt_email_at: null,
      receipt_sms_at: null,
      child_transactions: [],
    });
    expect(tx.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(tx.auth_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(tx.issuer_auth_code).toMatch(/^\d{6}$/);
    expect(tx.created_at).toMatch(TIMESTAMP);
    expect(tx.updated_at).toMatch(TIMESTAMP);
    const stored = await ctx.deps.db.get<{ total_cents: number }>(
      sql`SELECT total_cents FROM transactions WHERE id = ${tx.id}`,
    );
    expect(stored?.total_cents).toBe(1050);
  });

  test("total may be a numeric string", async () => {
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: "1234.56" } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1234.56);
  });

  test("total must be a number greater than 0 with at most two decimals", async () => {
    const pm = await tokenize(ctx);
    const cases: [unknown, string][] = [
      [0, MESSAGES.totalPositive],
      [-5, MESSAGES.totalPositive],
      ["0.00", MESSAGES.totalPositive],
      [1.005, MESSAGES.totalDecimals],
      ["1.005", MESSAGES.totalDecimals],
      ["ten", MESSAGES.totalNumeric],
    ];
    for (const [total, message] of cases) {
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ total: [message] });
    }
    const missing = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id } });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["total"]);
    expect(await countRows(ctx.deps.db, "transactions")).toBe(0);
  });

  test("the smallest and largest totals are accepted", async () => {
    const pm = await tokenize(ctx);
    for (const total of [0.01, 99999999.99]) {
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total } });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(total);
    }
    const over = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 100000000 } });
    expect(over.status).toBe(422);
  });

  test("payment_method_id is required", async () => {
    const res = await ctx.call("POST", "/charge", { body: { total: 5 } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ payment_method_id: [MESSAGES.required("payment_method_id")] });
  });

  test("an unknown payment method is a 404", async () => {
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: "nope", total: 5 } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Payment method not found.", code: "not_found", param: "payment_method_id" });
  });

  test("a declined card answers 402 with the failed transaction, which is kept", async () => {
    const res = await charge(ctx, 20, { card_number: "4012888888881881" });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("payment_declined");
    expect(res.body.message).toBe(DECLINE_MESSAGES.decline);
    expect(res.body.transaction).toMatchObject({
      success: false,
      total: 20,
      message: DECLINE_MESSAGES.decline,
      auth_id: null,
      is_voidable: false,
    });
    const stored = await ctx.call("GET", `/transaction/${res.body.transaction.id}`);
    expect(stored.status).toBe(200);
    expect(stored.body.success).toBe(false);
  });

  test("scenario cards decline with their own reasons", async () => {
    const cases = [
      ["4000000000009995", "insufficient_funds"],
      ["4000000000000069", "expired_card"],
      ["4000000000000127", "incorrect_cvv"],
      ["4000000000000119", "processing_error"],
    ] as const;
    for (const [number, reason] of cases) {
      const res = await charge(ctx, 5, { card_number: number });
      expect(res.status).toBe(402);
      expect(res.body.message).toBe(DECLINE_MESSAGES[reason]);
      expect(res.body.transaction.decline_code).toBe(reason);
    }
  });

  test("the test bank account charges; another account at the test routing declines", async () => {
    const ok = await charge(ctx, 40, { ...BANK });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ method: "bank", success: true, last_four: "3210", issuer_auth_code: null });
    const no = await charge(ctx, 40, { ...BANK, bank_account: "1111111111" });
    expect(no.status).toBe(402);
    expect(no.body.message).toBe(BANK_DECLINE_MESSAGE);
  });

  test("pre_auth creates a pre_auth transaction", async () => {
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 7, pre_auth: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: "pre_auth", pre_auth: true, is_captured: false });
  });

  test("meta is stored exactly as given, arbitrary members included", async () => {
    const pm = await tokenize(ctx);
    const meta = {
      reference: "ORD-1",
      memo: "thanks",
      tax: 1.25,
      lineItems: [{ item: "Tea", quantity: 2, price: 3.5 }],
      nested: { deep: [1, { x: null }] },
      unicode: "Zoë ✓",
    };
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 8.25, meta } });
    expect(res.body.meta).toEqual(meta);
    expect((await ctx.call("GET", `/transaction/${res.body.id}`)).body.meta).toEqual(meta);
  });

  test("meta must be an object", async () => {
    const pm = await tokenize(ctx);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 1, meta: [1] } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(["meta"]);
  });

  test("meta of another type is a 422 beside the other fields' errors, never reshaped into an object; null is none", async () => {
    const pm = await tokenize(ctx);
    // Elysia's normalizer would have made these {"0": "s"}, {} and {"0": 1} (and let them through).
    for (const meta of ["s", 5, true, [1, 2]]) {
      const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: "ten", meta } });
      expect(res.status).toBe(422);
      expect(res.body.errors.meta).toEqual(["The meta must be an object."]);
      expect(Object.keys(res.body.errors).sort()).toEqual(["meta", "total"]);
    }
    const none = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 1, meta: null } });
    expect([none.status, none.body.meta]).toEqual([200, {}]);
  });

  test("meta keeps its members' order, big numbers as JSON.parse reads them, and keys like __proto__", async () => {
    const pm = await tokenize(ctx);
    const raw = `{"payment_method_id":"${pm.id}","total":1,"meta":{"z":1,"a":{"__proto__":{"x":1},"constructor":2},"big":12345678901234567890,"m":[]}}`;
    const res = await ctx.call("POST", "/charge", { raw });
    expect(res.status).toBe(200);
    const sent = JSON.parse(raw).meta;
    for (const meta of [res.body.meta, (await ctx.call("GET", `/transaction/${res.body.id}`)).body.meta]) {
      expect(JSON.stringify(meta)).toBe(JSON.stringify(sent));
      expect(Object.keys(meta.a)).toEqual(["__proto__", "constructor"]);
    }
  });

  test("a deleted payment method cannot be charged", async () => {
    const pm = await tokenize(ctx);
    const deleted = await ctx.call("DELETE", `/payment-method/${pm.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_at).toMatch(TIMESTAMP);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("invalid_state");
  });

  test("a card that expired after tokenizing cannot be charged", async () => {
    const pm = await tokenize(ctx, { card_exp: "1230" });
    await ctx.deps.clock.advance(ctx.merchantId, 6 * 365 * 86_400_000);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain("expired");
  }, 30_000);
});

describe("payment methods", () => {
  test("GET /payment-method/{id} and GET /customer/{id}/payment-method return them without numbers", async () => {
    const a = await tokenize(ctx);
    const b = await tokenize(ctx, { card_number: "5555555555554444" });
    const one = await ctx.call("GET", `/payment-method/${a.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(a);
    const list = await ctx.call("GET", `/customer/${a.customer_id}/payment-method`);
    expect(list.body.map((pm: { id: string }) => pm.id)).toEqual([a.id, b.id]);
    await ctx.call("DELETE", `/payment-method/${a.id}`);
    const after = await ctx.call("GET", `/customer/${a.customer_id}/payment-method`);
    expect(after.body.map((pm: { id: string }) => pm.id)).toEqual([b.id]);
  });
});
