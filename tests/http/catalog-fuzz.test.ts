/**
 * Bad input never makes a 5xx on the catalog and payment-link routes (issue 30), and a refused
 * request writes nothing: no item, no link, no invoice, no transaction, no stock change.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { setup, tokenize, type TestContext } from "../support/app";
import { countRows } from "../support/database";

const anything = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("1e400", "0.001", "-1", " 5 ", "", "0", "x".repeat(300), "2026-13-45", "99999999.99"),
  fc.array(fc.jsonValue(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue(), { maxKeys: 3 }),
);

/** What the database holds that a refused request must leave alone. */
async function state(ctx: TestContext, itemId: string) {
  const tables = ["items", "payment_links", "invoices", "transactions"];
  const counts = await Promise.all(tables.map((table) => countRows(ctx.deps.db, table)));
  const item = (await ctx.call("GET", `/item/${itemId}`)).body;
  return { counts, stock: item.in_stock, price: item.price };
}

describe("catalog and payment-link routes under random input", () => {
  test("answer 2xx or a 4xx envelope, never a 5xx; refused requests write nothing", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const item = (await ctx.call("POST", "/item", { body: { item: "Mat", price: 3, in_stock: 5 } })).body;
    const link = (await ctx.call("POST", "/query/payment-links", { body: { common_name: "L", amount: 3 } })).body.body;
    const lineItems = fc.oneof(
      anything,
      fc.array(
        fc.record(
          { id: fc.oneof(anything, fc.constant(item.id)), item: anything, price: anything, quantity: anything },
          { requiredKeys: [] },
        ),
        { maxLength: 3 },
      ),
    );
    const routes = fc.constantFrom(
      { method: "POST", path: "/item", auth: undefined },
      { method: "PUT", path: `/item/${item.id}`, auth: undefined },
      { method: "PUT", path: `/item/${item.id}/increment`, auth: undefined },
      { method: "PUT", path: `/item/${item.id}/decrement`, auth: undefined },
      { method: "POST", path: "/invoice", auth: undefined },
      { method: "POST", path: "/query/payment-links", auth: undefined },
      { method: "PUT", path: `/query/payment-links/${link.id}`, auth: undefined },
      { method: "PUT", path: `/query/payment-links/${link.id}/update-stats`, auth: undefined },
      { method: "POST", path: `/webpayment/${ctx.token}/payment-link/${link.id}/pay`, auth: false as const },
    );
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          item: anything,
          code: anything,
          price: anything,
          in_stock: anything,
          low_stock_alert: anything,
          is_active: anything,
          is_discount: anything,
          meta: fc.oneof(anything, fc.record({ lineItems, tax: anything, subtotal: anything }, { requiredKeys: [] })),
          quantity: anything,
          customer_id: fc.oneof(anything, fc.constant(pm.customer_id)),
          total: anything,
          common_name: anything,
          amount: anything,
          active: anything,
          expires_at: anything,
          max_uses: anything,
          link_meta: fc.oneof(
            anything,
            fc.record(
              {
                lineItems,
                price: anything,
                quantity: anything,
                tax: anything,
                isTotalEditable: anything,
                total: anything,
              },
              { requiredKeys: [] },
            ),
          ),
          payment_method_id: fc.oneof(anything, fc.constant(pm.id)),
          firstname: anything,
          lastname: anything,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(routes, bodies, async (route, body) => {
        const before = await state(ctx, item.id);
        const res = await ctx.call(route.method, route.path, { body, auth: route.auth });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(typeof res.body.message).toBe("string");
          expect(typeof res.body.code).toBe("string");
          expect(await state(ctx, item.id)).toEqual(before);
        }
      }),
      { numRuns: 300 },
    );
    const queries = fc.record(
      { page: anything, per_page: anything, price: anything, quantity: anything, is_active: anything, sort: anything },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/item", "/item/code", "/query/payment-links"), queries, async (path, q) => {
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries(q)) search.set(k, typeof v === "string" ? v : JSON.stringify(v));
        expect((await ctx.call("GET", `${path}?${search}`)).status).toBeLessThan(500);
      }),
      { numRuns: 100 },
    );
    expect(ctx.log.lines.filter((line) => line.includes("failed:"))).toEqual([]);
  }, 120_000);
});
