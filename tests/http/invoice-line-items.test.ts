/**
 * Invoices built from the catalog (issue 30): meta.lineItems entries naming catalog items are
 * priced by the sandbox and must add up to the total (docs/contract.md §5, "Line items from the
 * catalog"), on POST /invoice and PUT /invoice/{id}.
 */
import { describe, expect, test } from "bun:test";
import { LINE_ITEM_MESSAGES, lineCents } from "../../src/services/catalog/line-items";
import { ITEM_MESSAGES } from "../../src/services/catalog/items";
import { setup, tokenize, type TestContext } from "../support/app";

async function item(ctx: TestContext, body: Record<string, unknown>) {
  const res = await ctx.call("POST", "/item", { body: { in_stock: 10, ...body } });
  if (res.status !== 200) throw new Error(`POST /item: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string };
}

async function customerId(ctx: TestContext): Promise<string> {
  const res = await ctx.call("POST", "/customer", { body: { firstname: "Grace", email: "grace@example.com" } });
  return res.body.id;
}

async function invoiceCount(ctx: TestContext): Promise<number> {
  return (await ctx.call("GET", "/invoice")).body.total;
}

describe("POST /invoice with catalog line items", () => {
  test("prices each line from the catalog, fills in names, writes the subtotal and checks the total", async () => {
    const ctx = await setup();
    const soap = await item(ctx, { item: "Soap", details: "lavender", price: 7.11 });
    const towel = await item(ctx, { item: "Towel", price: 9 });
    const coupon = await item(ctx, { item: "Coupon", price: 1, is_discount: true });
    const customer = await customerId(ctx);
    const meta = {
      tax: 1.5,
      memo: "Spa order",
      lineItems: [
        { id: soap.id, quantity: 2 },
        { id: towel.id, quantity: 1, price: 5, item: "Towel (sale)" },
        { id: coupon.id },
        { item: "Gift wrap", quantity: 1, price: "0.50" },
      ],
    };
    // 2 × 7.11 + 1 × 5.00 − 1 × 1.00 + 0.50 = 18.72; + tax 1.50 = 20.22
    const wrong = await ctx.call("POST", "/invoice", { body: { customer_id: customer, total: 20, meta } });
    expect([wrong.status, wrong.body.code]).toEqual([422, "validation_error"]);
    expect(wrong.body.errors.total).toEqual([LINE_ITEM_MESSAGES.total("20.22")]);
    expect(await invoiceCount(ctx)).toBe(0);
    const res = await ctx.call("POST", "/invoice", { body: { customer_id: customer, total: 20.22, meta } });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(20.22);
    expect(res.body.meta).toEqual({
      tax: 1.5,
      memo: "Spa order",
      subtotal: 18.72,
      lineItems: [
        { id: soap.id, item: "Soap", details: "lavender", quantity: 2, price: 7.11 },
        { id: towel.id, item: "Towel (sale)", details: "", quantity: 1, price: 5 },
        { id: coupon.id, item: "Coupon", details: "", quantity: 1, price: 1 },
        { item: "Gift wrap", details: "", quantity: 1, price: 0.5 },
      ],
    });
  });

  test("rounds each line half up to a whole cent; a given subtotal and shipping take part", async () => {
    expect(lineCents(25, 150)).toBe(38); // 1.5 × 0.25 = 0.375 → 0.38
    expect(lineCents(5, 50)).toBe(3); // 0.5 × 0.05 = 0.025 → 0.03
    expect(lineCents(333, 33)).toBe(110); // 0.33 × 3.33 = 1.0989 → 1.10
    const ctx = await setup();
    const hour = await item(ctx, { item: "Consulting hour", price: 0.25, is_service: true });
    const customer = await customerId(ctx);
    const meta = { subtotal: 0.38, shippingAmount: 2, lineItems: [{ id: hour.id, quantity: 1.5 }] };
    const res = await ctx.call("POST", "/invoice", { body: { customer_id: customer, total: 2.38, meta } });
    expect([res.status, res.body.meta.subtotal]).toEqual([200, 0.38]);
    const badSubtotal = await ctx.call("POST", "/invoice", {
      body: { customer_id: customer, total: 2.38, meta: { ...meta, subtotal: 0.37 } },
    });
    expect(badSubtotal.body.errors["meta.subtotal"]).toEqual([LINE_ITEM_MESSAGES.subtotal("0.38")]);
  });

  test("an unknown, deleted or inactive item, or a bad quantity or price, is a 422 naming the entry; nothing is written", async () => {
    const ctx = await setup();
    const gone = await item(ctx, { item: "Gone", price: 1 });
    await ctx.call("DELETE", `/item/${gone.id}`);
    const off = await item(ctx, { item: "Off", price: 1, is_active: false });
    const ok = await item(ctx, { item: "Ok", price: 1 });
    const customer = await customerId(ctx);
    const cases: [unknown[], string, string][] = [
      [[{ id: "no-such-item" }], "meta.lineItems.0.id", LINE_ITEM_MESSAGES.unknownItem("no-such-item")],
      [[{ id: ok.id }, { id: gone.id }], "meta.lineItems.1.id", LINE_ITEM_MESSAGES.deletedItem(gone.id)],
      [[{ id: off.id }], "meta.lineItems.0.id", LINE_ITEM_MESSAGES.inactiveItem(off.id)],
      [[{ id: ok.id, quantity: 0 }], "meta.lineItems.0.quantity", LINE_ITEM_MESSAGES.quantity],
      [[{ id: ok.id, quantity: -2 }], "meta.lineItems.0.quantity", LINE_ITEM_MESSAGES.quantity],
      [[{ id: ok.id, price: -1 }], "meta.lineItems.0.price", LINE_ITEM_MESSAGES.price],
      [[{ id: ok.id }, { item: "free-form" }], "meta.lineItems.1.price", LINE_ITEM_MESSAGES.priceRequired],
      [[{ id: ok.id }, "text"], "meta.lineItems.1", LINE_ITEM_MESSAGES.entry],
    ];
    for (const [lineItems, field, message] of cases) {
      const res = await ctx.call("POST", "/invoice", {
        body: { customer_id: customer, total: 1, meta: { lineItems } },
      });
      expect({ field, status: res.status, errors: res.body.errors?.[field] }).toEqual({
        field,
        status: 422,
        errors: [message],
      });
    }
    expect(await invoiceCount(ctx)).toBe(0);
  });

  test("free-form line items (no catalog id) are kept as given and not checked, as before", async () => {
    const ctx = await setup();
    const customer = await customerId(ctx);
    const meta = { subtotal: 1, lineItems: [{ item: "Hours", quantity: 3, price: 30 }] };
    const res = await ctx.call("POST", "/invoice", { body: { customer_id: customer, total: 100, meta } });
    expect([res.status, res.body.meta]).toEqual([200, meta]);
  });
});

describe("PUT /invoice/{id} with catalog line items", () => {
  test("new meta is priced against the total; a total alone is checked against the stored lines", async () => {
    const ctx = await setup();
    const soap = await item(ctx, { item: "Soap", price: 2 });
    const customer = await customerId(ctx);
    const created = await ctx.call("POST", "/invoice", {
      body: { customer_id: customer, total: 4, meta: { lineItems: [{ id: soap.id, quantity: 2 }] } },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    const more = { lineItems: [{ id: soap.id, quantity: 3 }] };
    const mismatch = await ctx.call("PUT", `/invoice/${id}`, { body: { meta: more } });
    expect(mismatch.body.errors?.total).toEqual([LINE_ITEM_MESSAGES.total("6.00")]);
    const both = await ctx.call("PUT", `/invoice/${id}`, { body: { meta: more, total: 6 } });
    expect([both.status, both.body.total, both.body.meta.subtotal]).toEqual([200, 6, 6]);
    const totalOnly = await ctx.call("PUT", `/invoice/${id}`, { body: { total: 7 } });
    expect(totalOnly.body.errors?.total).toEqual([LINE_ITEM_MESSAGES.total("6.00")]);
    expect((await ctx.call("GET", `/invoice/${id}`)).body.total).toBe(6);
    await ctx.call("DELETE", `/item/${soap.id}`);
    const deleted = await ctx.call("PUT", `/invoice/${id}`, { body: { meta: more } });
    expect(deleted.body.errors?.["meta.lineItems.0.id"]).toEqual([LINE_ITEM_MESSAGES.deletedItem(soap.id)]);
  });
});

describe("meta.update_inventory: paid invoices take their items out of stock", () => {
  async function stockedInvoice(ctx: TestContext, itemId: string, quantity: number, updateInventory = true) {
    const customer = await customerId(ctx);
    const res = await ctx.call("POST", "/invoice", {
      body: {
        customer_id: customer,
        total: 4 * quantity,
        meta: { update_inventory: updateInventory, lineItems: [{ id: itemId, quantity }] },
      },
    });
    expect(res.status).toBe(200);
    return res.body.id as string;
  }
  const stock = async (ctx: TestContext, id: string) => (await ctx.call("GET", `/item/${id}`)).body.in_stock;

  test("an approved payment takes the quantities; not enough stock refuses the payment and writes nothing", async () => {
    const ctx = await setup();
    const mat = await item(ctx, { item: "Mat", price: 4, in_stock: 3 });
    const pm = await tokenize(ctx);
    const names: string[] = [];
    ctx.deps.events.on((_ex, event) => void names.push(event.name));
    const first = await stockedInvoice(ctx, mat.id, 2);
    const paid = await ctx.call("POST", `/invoice/${first}/pay`, { body: { payment_method_id: pm.id } });
    expect(paid.status).toBe(200);
    expect(await stock(ctx, mat.id)).toBe(1);
    expect(names).toContain("update_item");
    const second = await stockedInvoice(ctx, mat.id, 2);
    const refused = await ctx.call("POST", `/invoice/${second}/pay`, { body: { payment_method_id: pm.id } });
    expect([refused.status, refused.body.code, refused.body.item_id]).toEqual([422, "invalid_state", mat.id]);
    expect(refused.body.message).toBe(ITEM_MESSAGES.outOfStock("Mat", 1, 2));
    const after = (await ctx.call("GET", `/invoice/${second}`)).body;
    expect([after.status, after.child_transactions, after.sent_at]).toEqual(["DRAFT", [], null]);
    expect(await stock(ctx, mat.id)).toBe(1);
    // The receipt is stored with the payment: the one undone left none.
    const emails = (await ctx.call("GET", "/_sandbox/emails", { auth: false })).body;
    expect(emails.data.map((e: { invoice_id: string }) => e.invoice_id)).toEqual([first]);
  });

  test("a declined payment or an invoice without the flag takes nothing; a payment link passes the flag on", async () => {
    const ctx = await setup();
    const mat = await item(ctx, { item: "Mat", price: 4, in_stock: 3 });
    const declining = await tokenize(ctx, { card_number: "4012888888881881" });
    const flagged = await stockedInvoice(ctx, mat.id, 1);
    expect(
      (await ctx.call("POST", `/invoice/${flagged}/pay`, { body: { payment_method_id: declining.id } })).status,
    ).toBe(402);
    const pm = await tokenize(ctx);
    const plain = await stockedInvoice(ctx, mat.id, 1, false);
    expect((await ctx.call("POST", `/invoice/${plain}/pay`, { body: { payment_method_id: pm.id } })).status).toBe(200);
    expect(await stock(ctx, mat.id)).toBe(3);
    const link = await ctx.call("POST", "/query/payment-links", {
      body: { common_name: "Mat", link_meta: { update_inventory: true, lineItems: [{ id: mat.id, quantity: 2 }] } },
    });
    const paid = await ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${link.body.body.id}/pay`, {
      body: { payment_method_id: pm.id, firstname: "Ada", lastname: "Lovelace" },
      auth: false,
    });
    expect([paid.status, paid.body.meta.update_inventory]).toEqual([200, true]);
    expect(await stock(ctx, mat.id)).toBe(1);
  });
});
