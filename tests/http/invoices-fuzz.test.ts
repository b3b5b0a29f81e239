/**
 * Bad input never makes a 5xx on the invoice, receipt and outbox routes, and a refused request
 * writes nothing.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { setup, tokenize } from "../support/app";
import { countRows } from "../support/database";

const anything = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("1e400", "0.001", "-1", " 5 ", "", "x".repeat(300), "<script>", "ada@example.com"),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
);

const meta = fc.oneof(
  anything,
  fc.record(
    {
      reference: anything,
      memo: anything,
      subtotal: anything,
      tax: anything,
      lineItems: fc.oneof(anything, fc.array(fc.dictionary(fc.constantFrom("item", "price", "quantity"), anything))),
      invoice_merchant_custom_fields: fc.oneof(
        anything,
        fc.array(fc.record({ id: anything, type: anything, visible: anything, value: anything }, { requiredKeys: [] })),
      ),
    },
    { requiredKeys: [] },
  ),
);

describe("invoice, receipt and outbox routes under random input", () => {
  test("answer 2xx or a 4xx envelope, never a 5xx; refused invoices write nothing", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const customer = pm.customer_id;
    const good = await ctx.call("POST", "/invoice", { body: { customer_id: customer, total: 5 } });
    const paths = fc.constantFrom(
      { method: "POST", path: `/webpayment/${ctx.token}/invoice`, auth: false as const },
      { method: "POST", path: `/webpayment/${ctx.token}/invoice/${good.body.id}/pay`, auth: false as const },
      { method: "POST", path: `/webpayment/${ctx.token}/invoice/%2e%2e/pay`, auth: false as const },
      { method: "POST", path: "/invoice", auth: undefined },
      { method: "POST", path: `/invoice/${good.body.id}/pay`, auth: undefined },
      { method: "POST", path: `/transaction/nope/receipt-email`, auth: undefined },
      { method: "POST", path: `/transaction/nope/receipt-sms`, auth: undefined },
    );
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          payment_method_id: fc.oneof(anything, fc.constant(pm.id)),
          invoice_id: fc.oneof(anything, fc.constant(good.body.id)),
          customer_id: fc.oneof(anything, fc.constant(customer)),
          total: anything,
          meta,
          url: anything,
          send_receipt: anything,
          email: anything,
          phone: anything,
          firstname: anything,
          lastname: anything,
          address_1: anything,
          address_state: anything,
          due_at: anything,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(paths, bodies, async (route, body) => {
        const before = await countRows(ctx.deps.db, "invoices");
        const res = await ctx.call(route.method, route.path, { body, auth: route.auth });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(typeof res.body.message).toBe("string");
          expect(typeof res.body.code).toBe("string");
          const after = await countRows(ctx.deps.db, "invoices");
          expect(after).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
    const queries = fc.record(
      { page: anything, per_page: anything, to: anything, status: anything, customer_id: anything },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/invoice", "/_sandbox/emails", "/_sandbox/sms"), queries, async (path, q) => {
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) search.set(k, typeof v === "string" ? v : JSON.stringify(v));
        const res = await ctx.call("GET", `${path}?${search}`);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    expect(ctx.log.lines.filter((line) => line.includes("failed:"))).toEqual([]);
  }, 60_000);
});
