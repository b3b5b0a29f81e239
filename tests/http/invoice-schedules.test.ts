/**
 * The real service's invoice schedule operations (issue 30): GET, POST, PUT and DELETE
 * /invoice/schedule with the real fields, compared with the real example answer
 * (tests/fixtures/real-api/); the refusals of bad input, which write nothing. What the clock does
 * with a schedule: tests/http/invoice-schedules-clock.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type { SandboxEvent } from "../../src/domain/events";
import { SCHEDULE_MESSAGES } from "../../src/services/invoice-schedules";
import { setup, tokenize, type TestContext } from "../support/app";
import { realOperation, shapeDifferences } from "../support/real-api";

/** The real record's fields the sandbox does not keep (users), and customer fields it leaves out. */
const SCHEDULE_GAPS = [
  // The customer record's own choices (docs/contract.md §6): nothing given is null.
  "type: customer.cc_emails real array, ours null",
  "type: customer.notes real string, ours null",
  "type: customer.options real object, ours null",
  // The real example is a deleted schedule.
  "type: deleted_at real string, ours null",
  "missing: customer.has_address",
  "missing: customer.missing_address_components",
  "missing: user_id",
  // The real example's card-payment switches: the sandbox keeps meta as given.
  ...[
    "discountAfterTax",
    "discountBeforeTax",
    "isACHPaymentEnabled",
    "isBulkInvoice",
    "isCCPaymentEnabled",
    "isCnpDigitalWalletPaymentEnabled",
    "isPaypalBnplPaymentEnabled",
    "isPaypalPaymentEnabled",
    "isTipEnabled",
    "isVenmoPaymentEnabled",
    "shippingAmount",
    "surcharge",
    "taxOverride",
    "type",
    "update_inventory",
    "internalMemo",
  ].map((member) => `missing: meta.${member}`),
];

const RULE = "FREQ=MONTHLY;INTERVAL=1;DTSTART=20300703T140000Z";
const META = {
  subtotal: 100,
  tax: 0,
  memo: "Test Memo",
  // No id: an id names a catalog item (docs/contract.md, line items from the catalog).
  lineItems: [{ item: "Test Item", details: "", quantity: 1, price: "100.00" }],
};

async function customer(ctx: TestContext, email = "grace@example.com") {
  const res = await ctx.call("POST", "/customer", { body: { firstname: "Grace", lastname: "Hopper", email } });
  expect(res.status).toBe(200);
  return res.body;
}

function recordEvents(ctx: TestContext): SandboxEvent[] {
  const events: SandboxEvent[] = [];
  ctx.deps.events.on((_ex, event) => void events.push(event));
  return events;
}

describe("POST /invoice/schedule", () => {
  test("stores the schedule with its rule in words and next occurrences, answers 201 in the real shape", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const events = recordEvents(ctx);
    const res = await ctx.call("POST", "/invoice/schedule/", {
      body: { rule: RULE, total: 100, payment_method_id: pm.id, meta: META, url: "https://example.com/bill/" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      customer_id: pm.customer_id,
      payment_method_id: pm.id,
      payment_method: { id: pm.id, card_last_four: "1111" },
      active: true,
      status: "ACTIVE",
      count: 0,
      rule: RULE,
      rule_text: "every month",
      next_run_at: "2030-07-03 14:00:00",
      last_run_at: null,
      max: null,
      end_at: null,
      event: "InvoiceGenerator",
      total: 100,
      meta: META,
      url: "https://example.com/bill/",
      email_notification: true,
      invoice_ids: [],
      deleted_at: null,
    });
    expect(res.body.future_occurrences).toEqual([
      "2030-07-03 14:00:00",
      "2030-08-03 14:00:00",
      "2030-09-03 14:00:00",
      "2030-10-03 14:00:00",
      "2030-11-03 14:00:00",
    ]);
    expect(events.map((e) => [e.name, e.record.id])).toEqual([["create_scheduled_invoice", res.body.id]]);
    const example = realOperation("DELETE", "/invoice/schedule/{id}").example;
    expect(shapeDifferences(res.body, example).filter((d) => !SCHEDULE_GAPS.includes(d))).toEqual([]);
    expect((await ctx.call("GET", `/invoice/schedule/${res.body.id}`)).body).toEqual(res.body);
  });

  test("a rule without DTSTART starts now; COUNT and UNTIL give max and end_at", async () => {
    const ctx = await setup();
    const who = await customer(ctx);
    const now = ctx.deps.clock.timestamp(ctx.merchantId);
    const plain = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: "FREQ=WEEKLY;BYDAY=MO,FR", total: "9.99", customer_id: who.id },
    });
    expect(plain.status).toBe(201);
    expect(plain.body.rule).toMatch(/^FREQ=WEEKLY;BYDAY=MO,FR;DTSTART=\d{8}T\d{6}Z$/);
    expect(plain.body.next_run_at >= now).toBe(true);
    expect(plain.body).toMatchObject({ total: 9.99, payment_method_id: null, payment_method: null });
    const ended = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: "FREQ=YEARLY;COUNT=3;DTSTART=20310101T090000Z", total: 5, customer_id: who.id },
    });
    expect(ended.body).toMatchObject({ max: 3, end_at: null, rule_text: "every year for 3 times" });
    expect(ended.body.future_occurrences).toEqual([
      "2031-01-01 09:00:00",
      "2032-01-01 09:00:00",
      "2033-01-01 09:00:00",
    ]);
    const until = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: "FREQ=MONTHLY;UNTIL=20310301T000000Z;DTSTART=20310101T090000Z", total: 5, customer_id: who.id },
    });
    expect(until.body).toMatchObject({ end_at: "2031-03-01 00:00:00", max: null });
    expect(until.body.future_occurrences).toEqual(["2031-01-01 09:00:00", "2031-02-01 09:00:00"]);
  });

  test("bad input is a 422 in the one envelope and stores nothing", async () => {
    const ctx = await setup();
    const who = await customer(ctx);
    const gone = await customer(ctx, "gone@example.com");
    await ctx.call("DELETE", `/customer/${gone.id}`);
    const pm = await tokenize(ctx);
    const deletedPm = await tokenize(ctx, { email: "other@example.com" });
    await ctx.call("DELETE", `/payment-method/${deletedPm.id}`);
    const events = recordEvents(ctx);
    const cases: Array<[unknown, string, string?]> = [
      [{ rule: "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", total: 1, customer_id: who.id }, "rule"],
      [{ rule: "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", total: 1, customer_id: who.id }, "rule"],
      [{ rule: "whenever", total: 1, customer_id: who.id }, "rule"],
      [{ rule: "FREQ=HOURLY", total: 1, customer_id: who.id }, "rule", SCHEDULE_MESSAGES.ruleFrequency],
      [
        { rule: "FREQ=MONTHLY;UNTIL=20300101T000000Z;DTSTART=20300601T000000Z", total: 1, customer_id: who.id },
        "rule",
        SCHEDULE_MESSAGES.ruleEndsBeforeStart,
      ],
      [
        { rule: "FREQ=MONTHLY;COUNT=2;DTSTART=20200101T000000Z", total: 1, customer_id: who.id },
        "rule",
        SCHEDULE_MESSAGES.ruleNeverOccurs,
      ],
      [{ rule: "FREQ=MONTHLY;INTERVAL=0", total: 1, customer_id: who.id }, "rule", SCHEDULE_MESSAGES.ruleInterval],
      [{ rule: "FREQ=MONTHLY;BYDAY=XX", total: 1, customer_id: who.id }, "rule"],
      [{ rule: RULE, total: 1, customer_id: "nobody" }, "customer_id"],
      [{ rule: RULE, total: 1, customer_id: gone.id }, "customer_id", SCHEDULE_MESSAGES.customerDeleted],
      [{ rule: RULE, total: 1, payment_method_id: "nothing" }, "payment_method_id"],
      [{ rule: RULE, total: 1, payment_method_id: deletedPm.id }, "payment_method_id"],
      [
        { rule: RULE, total: 1, customer_id: who.id, payment_method_id: pm.id },
        "payment_method_id",
        SCHEDULE_MESSAGES.paymentMethodOtherCustomer,
      ],
      [{ rule: RULE, total: 1 }, "customer_id", SCHEDULE_MESSAGES.customerOrPaymentMethod],
      [{ rule: RULE, total: 0, customer_id: who.id }, "total"],
      [{ rule: RULE, total: "1.234", customer_id: who.id }, "total"],
      [{ rule: RULE, total: 1, customer_id: who.id, meta: [1] }, "meta"],
      [{ total: 1, customer_id: who.id }, "rule"],
    ];
    for (const [body, field, message] of cases) {
      const res = await ctx.call("POST", "/invoice/schedule", { body });
      expect([JSON.stringify(body), res.status, res.body.code]).toEqual([
        JSON.stringify(body),
        422,
        "validation_error",
      ]);
      expect(Object.keys(res.body.errors ?? {})).toContain(field);
      if (message) expect(res.body.errors[field]).toContain(message);
    }
    for (const raw of ['"hello"', "[]", "42"]) {
      const res = await ctx.call("POST", "/invoice/schedule", { raw });
      expect([raw, res.status]).toEqual([raw, 422]);
    }
    expect((await ctx.call("GET", "/invoice/schedule")).body.total).toBe(0);
    expect(events).toEqual([]);
  });
});

describe("catalog items as a schedule's line items", () => {
  test("are priced from the catalog; a total that is not theirs, or an unknown item, is a 422 writing nothing", async () => {
    const ctx = await setup();
    const who = await customer(ctx);
    const item = await ctx.call("POST", "/item", { body: { item: "Monthly plan", price: 12.5 } });
    expect(item.status).toBe(200);
    const lines = { lineItems: [{ id: item.body.id, quantity: 2 }] };
    const wrong = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: RULE, total: 20, customer_id: who.id, meta: lines },
    });
    expect([wrong.status, Object.keys(wrong.body.errors)]).toEqual([422, ["total"]]);
    const unknown = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: RULE, total: 25, customer_id: who.id, meta: { lineItems: [{ id: "no-such-item" }] } },
    });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toContain("meta.lineItems.0.id");
    expect((await ctx.call("GET", "/invoice/schedule")).body.total).toBe(0);
    const made = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: RULE, total: 25, customer_id: who.id, meta: lines },
    });
    expect(made.status).toBe(201);
    expect(made.body.meta.lineItems[0]).toMatchObject({ id: item.body.id, item: "Monthly plan", quantity: 2 });
    const cheaper = await ctx.call("PUT", `/invoice/schedule/${made.body.id}`, { body: { total: 24 } });
    expect([cheaper.status, Object.keys(cheaper.body.errors)]).toEqual([422, ["total"]]);
    expect((await ctx.call("GET", `/invoice/schedule/${made.body.id}`)).body.total).toBe(25);
  });
});

describe("GET /invoice/schedule", () => {
  test("pages the live schedules with the real envelope, filters by customer, sorts; /invoice/{id} still answers invoices", async () => {
    const ctx = await setup();
    const a = await customer(ctx, "a@example.com");
    const b = await customer(ctx, "b@example.com");
    const made = [];
    for (const [who, total] of [
      [a, 30],
      [b, 10],
      [a, 20],
    ] as const) {
      const res = await ctx.call("POST", "/invoice/schedule", { body: { rule: RULE, total, customer_id: who.id } });
      made.push(res.body);
    }
    const page = await ctx.call("GET", "/invoice/schedule?per_page=2");
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, per_page: 2, current_page: 1, last_page: 2, from: 1, to: 2 });
    expect(page.body.next_page_url).toContain("page=2");
    expect(page.body.data.map((s: { id: string }) => s.id)).toEqual([made[2].id, made[1].id]);
    const mine = await ctx.call("GET", `/invoice/schedule?customer_id=${a.id}&sort=total&order=asc`);
    expect(mine.body.data.map((s: { total: number }) => s.total)).toEqual([20, 30]);
    // The real answer's fields (its description has no example to compare types with).
    const real = ["total", "per_page", "current_page", "last_page", "next_page_url", "prev_page_url", "from", "to"];
    expect(Object.keys(page.body)).toEqual(expect.arrayContaining([...real, "data"]));
    const invoice = await ctx.call("POST", "/invoice", { body: { customer_id: a.id, total: 5 } });
    expect((await ctx.call("GET", `/invoice/${invoice.body.id}`)).body.id).toBe(invoice.body.id);
    expect((await ctx.call("GET", "/invoice")).body.total).toBe(1);
  });
});

describe("PUT and DELETE /invoice/schedule/{id}", () => {
  test("PUT changes what it names and emits update_scheduled_invoice; DELETE soft-deletes in the real shape", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const other = await tokenize(ctx, { card_number: "5555555555554444" });
    const made = await ctx.call("POST", "/invoice/schedule", {
      body: { rule: RULE, total: 100, payment_method_id: pm.id },
    });
    const events = recordEvents(ctx);
    const put = await ctx.call("PUT", `/invoice/schedule/${made.body.id}`, {
      body: {
        total: 120,
        rule: "FREQ=MONTHLY;BYMONTHDAY=-1;DTSTART=20300131T090000Z",
        payment_method_id: other.id,
        email_notification: false,
        files: ["https://example.com/terms.pdf"],
        meta: { memo: "Plan B" },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      total: 120,
      payment_method_id: other.id,
      email_notification: false,
      files: ["https://example.com/terms.pdf"],
      meta: { memo: "Plan B" },
      next_run_at: "2030-01-31 09:00:00",
      rule_text: "every month on the last",
    });
    expect(put.body.future_occurrences.slice(0, 3)).toEqual([
      "2030-01-31 09:00:00",
      "2030-02-28 09:00:00",
      "2030-03-31 09:00:00",
    ]);
    const paused = await ctx.call("PUT", `/invoice/schedule/${made.body.id}`, { body: { active: false } });
    expect(paused.body).toMatchObject({ active: false, status: "PAUSED", next_run_at: null, future_occurrences: [] });
    const bad = await ctx.call("PUT", `/invoice/schedule/${made.body.id}`, {
      body: { total: 5, rule: "FREQ=SOMETIMES" },
    });
    expect([bad.status, bad.body.code]).toEqual([422, "validation_error"]);
    const kept = await ctx.call("PUT", `/invoice/schedule/${made.body.id}`, { body: { customer_id: pm.customer_id } });
    expect(kept.status).toBe(422);
    expect((await ctx.call("GET", `/invoice/schedule/${made.body.id}`)).body.total).toBe(120);

    const deleted = await ctx.call("DELETE", `/invoice/schedule/${made.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ status: "DELETED", active: false, next_run_at: null, future_occurrences: [] });
    expect(deleted.body.deleted_at).not.toBeNull();
    const example = realOperation("DELETE", "/invoice/schedule/{id}").example;
    // Its meta is what the PUT gave (kept as given).
    const departures = shapeDifferences(deleted.body, example).filter((d) => !d.startsWith("missing: meta."));
    expect(departures.filter((d) => !SCHEDULE_GAPS.includes(d))).toEqual([]);
    expect(events.map((e) => e.name)).toEqual([
      "update_scheduled_invoice",
      "update_scheduled_invoice",
      "delete_scheduled_invoice",
    ]);
    expect((await ctx.call("GET", "/invoice/schedule")).body.total).toBe(0);
    const after = await ctx.call("PUT", `/invoice/schedule/${made.body.id}`, { body: { active: true } });
    expect([after.status, after.body.code]).toEqual([422, "invalid_state"]);
    expect((await ctx.call("DELETE", "/invoice/schedule/nothing")).status).toBe(404);
    expect((await ctx.call("PUT", "/invoice/schedule/nothing", { body: {} })).status).toBe(404);
  });
});
