import { describe, expect, test } from "bun:test";
import { DECLINE_MESSAGES } from "../../src/domain/gateway";
import { setup, tokenize, type TestContext } from "../support/app";

const META = {
  reference: "REF-<1>",
  memo: "Gears & springs",
  subtotal: 18,
  tax: 2,
  lineItems: [{ item: "<b>Gear</b>", details: "brass", quantity: 2, price: 9 }],
  invoice_merchant_custom_fields: [
    { id: "po", name: "PO number", value: "PO-55", type: "text" },
    { id: "secret", name: "Margin", value: "MARGIN-40", type: "text", visible: false },
  ],
};

async function payInvoice(ctx: TestContext, card: Record<string, unknown> = {}, details: Record<string, unknown> = {}) {
  const pm = await tokenize(ctx, card);
  const invoice = await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
    body: {
      payment_method_id: pm.id,
      total: 20,
      firstname: "Ada",
      lastname: "Lovelace",
      phone: "5555550100",
      address_1: "1 Analytical Way",
      address_city: "London",
      address_state: "LN",
      email: "ada@example.com",
      meta: META,
      ...details,
    },
    auth: false,
  });
  const paid = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.body.id}/pay`, {
    body: { payment_method_id: pm.id },
    auth: false,
  });
  return paid.status === 200 ? paid.body : paid.body.invoice;
}

const get = (ctx: TestContext, path: string) => ctx.call("GET", path, { auth: false });

describe("GET /hosted/invoice/{id}", () => {
  test("shows the paid invoice: merchant, customer, items, totals, status and the transaction", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx);
    const page = await get(ctx, `/hosted/invoice/${invoice.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const body: string = page.body;
    expect(body).toContain("Sandbox Merchant");
    expect(body).toContain('id="invoice-status">PAID<');
    expect(body).toContain("Ada Lovelace");
    expect(body).toContain("1 Analytical Way");
    expect(body).toContain("&lt;b&gt;Gear&lt;/b&gt;");
    expect(body).not.toContain("<b>Gear</b>");
    expect(body).toContain("REF-&lt;1&gt;");
    expect(body).toContain("Gears &amp; springs");
    expect(body).toContain("$18.00");
    expect(body).toContain("$2.00");
    expect(body).toContain('id="invoice-total">$20.00<');
    expect(body).toContain('id="invoice-balance">$0.00<');
    expect(body).toContain(invoice.child_transactions[0].id);
    expect(body).toContain("•••• 1111");
    expect(body).not.toContain("/hosted/pay/");
    // Opening the page marks the invoice viewed.
    const read = await ctx.call("GET", `/invoice/${invoice.id}`);
    expect(read.body.viewed_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  test("shows custom fields only with advanced_customization, never the hidden ones", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx);
    const before: string = (await get(ctx, `/hosted/invoice/${invoice.id}`)).body;
    expect(before).not.toContain("PO-55");
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { body: { advanced_customization: true } });
    const after: string = (await get(ctx, `/hosted/invoice/${invoice.id}`)).body;
    expect(after).toContain("PO number");
    expect(after).toContain("PO-55");
    expect(after).not.toContain("MARGIN-40");
    expect(after).not.toContain("Margin");
  });

  test("a voided payment shows as VOIDED with its void listed under the charge", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx);
    const voided = await ctx.call("POST", `/transaction/${invoice.child_transactions[0].id}/void`, { body: {} });
    const body: string = (await get(ctx, `/hosted/invoice/${invoice.id}`)).body;
    expect(body).toContain('id="invoice-status">VOIDED<');
    expect(body).toContain(voided.body.child_transactions[0].id);
    expect(body).toContain("-$20.00");
    expect(body).not.toContain("/hosted/pay/");
  });

  test("an open invoice links to its payment page; an unknown id is an HTML 404", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx, { card_number: "4012888888881881" });
    const page: string = (await get(ctx, `/hosted/invoice/${invoice.id}`)).body;
    expect(page).toContain('id="invoice-status">ATTEMPTED<');
    expect(page).toContain(`href="http://localhost:7290/hosted/pay/${invoice.id}"`);
    expect(page).toContain(DECLINE_MESSAGES.decline);
    const missing = await get(ctx, "/hosted/invoice/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("text/html");
  });
});

describe("GET /hosted/pay/{id}", () => {
  test("an ATTEMPTED invoice gets a payjs form that pays this invoice", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx, { card_number: "4012888888881881" });
    const page = await get(ctx, `/hosted/pay/${invoice.id}`);
    expect(page.status).toBe(200);
    const body: string = page.body;
    expect(body).toContain('<script src="http://localhost:7290/payjs.js"></script>');
    expect(body).toContain("new PayJs(CONFIG.token, {");
    expect(body).toContain('number: { id: "card-number"');
    expect(body).toContain('cvv: { id: "card-cvv"');
    expect(body).toContain("showCardForm()");
    expect(body).toContain("invoice_id: CONFIG.invoiceId");
    expect(body).toContain(`"invoiceId":"${invoice.id}"`);
    expect(body).toContain(`"token":"${ctx.token}"`);
    expect(body).toContain(`"total":"20.00"`);
    expect(body).toContain('id="card-number"');
    expect(body).toContain('id="card-cvv"');
    expect(body).toContain(DECLINE_MESSAGES.decline);
    expect(body).toContain("&lt;b&gt;Gear&lt;/b&gt;");
    expect(body).toContain('value="Ada"');
  });

  test("customer text is escaped in form values and cannot close the page script", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(
      ctx,
      { card_number: "4012888888881881", firstname: '"><script>alert(1)</script>' },
      { firstname: "X" },
    );
    const body: string = (await get(ctx, `/hosted/pay/${invoice.id}`)).body;
    expect(body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(body).not.toContain("<script>alert(1)</script>");
  });

  test("a paid invoice says so and offers no form", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx);
    const body: string = (await get(ctx, `/hosted/pay/${invoice.id}`)).body;
    expect(body).toContain('id="pay-closed"');
    expect(body).toContain("it has been paid");
    expect(body).not.toContain("payjs.js");
    expect(body).toContain(`href="http://localhost:7290/hosted/invoice/${invoice.id}"`);
    expect((await get(ctx, "/hosted/pay/nope")).status).toBe(404);
  });

  test("the avs settings mark zip and street as required on the form", async () => {
    const ctx = await setup();
    const invoice = await payInvoice(ctx, { card_number: "4012888888881881" });
    expect((await get(ctx, `/hosted/pay/${invoice.id}`)).body).not.toContain("ZIP (required)");
    await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_zip: true, avs_street: true },
    });
    const body: string = (await get(ctx, `/hosted/pay/${invoice.id}`)).body;
    expect(body).toContain("ZIP (required)");
    expect(body).toContain("Street address (required)");
  });
});
