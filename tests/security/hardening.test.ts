/**
 * Smaller holes of issue 15, each through the real app: a bad dashboard cookie, framing of the
 * hosted pages, e-mail previews and the OpenAPI UI, what public-token tokenize reveals of a
 * customer, and money rendering of non-finite amounts.
 */
import { describe, expect, test } from "bun:test";
import { formatMoney } from "../../src/domain/money";
import { lineItemsOf } from "../../src/services/mail/receipt-templates";
import { CARD, setup, tokenize, type TestContext } from "../support/app";

async function get(ctx: TestContext, path: string, headers: Record<string, string> = {}) {
  return ctx.app.handle(new Request(`http://localhost${path}`, { headers }));
}

describe("the dashboard cookie", () => {
  test("paysandbox_merchant=% (or any undecodable or JSON-shaped value) is ignored: every page answers 200 for the default merchant", async () => {
    const ctx = await setup();
    for (const cookie of [
      "paysandbox_merchant=%",
      "paysandbox_merchant=%E0%A4%A",
      "a=b; paysandbox_merchant=%%%",
      'paysandbox_merchant={"id":1}',
      "paysandbox_merchant=[1]",
    ]) {
      for (const path of ["/", "/dashboard/transactions", "/dashboard/clock", "/dashboard/keys"]) {
        const res = await get(ctx, path, { cookie });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain("Sandbox Merchant");
      }
    }
  });
});

describe("framing and CSP", () => {
  test("hosted pages send frame-ancestors 'none', X-Frame-Options DENY and a CSP whose hash allows exactly their inline script", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", "/invoice", { body: { customer_id: pm.customer_id, total: 9 } });
    for (const path of [`/hosted/pay/${invoice.body.id}`, `/hosted/invoice/${invoice.body.id}`]) {
      const res = await get(ctx, path);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      const csp = res.headers.get("content-security-policy")!;
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain("'unsafe-inline' 'self'"); // scripts are never unsafe-inline
      expect(csp.split(";").find((d) => d.trim().startsWith("script-src"))).not.toContain("unsafe-inline");
      const body = await res.text();
      for (const [, script] of body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
        const hash = new Bun.CryptoHasher("sha256").update(script!).digest("base64");
        expect(csp).toContain(`'sha256-${hash}'`);
      }
    }
  });

  test("e-mail previews may be framed by the sandbox only; the OpenAPI UI by nobody", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", "/invoice", { body: { customer_id: pm.customer_id, total: 9 } });
    await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    await ctx.deps.mailer.idle();
    const preview = await get(ctx, "/_sandbox/emails/latest.html");
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
    expect(preview.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    const id = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body.id;
    const framed = await get(ctx, `/dashboard/emails/${id}/body.html`);
    expect(framed.headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
    const ui = await get(ctx, "/openapi");
    expect(ui.headers.get("x-frame-options")).toBe("DENY");
    expect(ui.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});

describe("public-token tokenize", () => {
  test("with someone's customer_id it returns only what the caller sent, never the stored record", async () => {
    const ctx = await setup();
    const customer = await ctx.call("POST", "/customer", {
      body: {
        firstname: "Grace",
        lastname: "Hopper",
        email: "grace@example.com",
        phone: "5555550199",
        address_1: "1 Secret Lane",
        notes: "VIP, owes us money",
        reference: "CRM-7",
      },
    });
    const res = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: {
        method: "card",
        card_number: CARD.card_number,
        card_exp: CARD.card_exp,
        person_name: "Someone Else",
        customer_id: customer.body.id,
      },
      auth: false,
    });
    expect(res.status).toBe(200);
    const shown = res.body.customer;
    expect(shown.id).toBe(customer.body.id);
    for (const field of ["email", "phone", "address_1", "notes", "reference"]) expect(shown[field]).toBe("");
    expect(JSON.stringify(res.body)).not.toContain("Secret Lane");
    expect(JSON.stringify(res.body)).not.toContain("VIP");
    // The merchant, with its key, still sees the whole customer on the payment method.
    const full = await ctx.call("GET", `/payment-method/${res.body.id}`);
    expect(full.body.customer.notes).toBe("VIP, owes us money");
  });

  test("a tokenize that matches a stored customer by e-mail and name does not reveal the customer's other fields", async () => {
    const ctx = await setup();
    await ctx.call("POST", "/customer", {
      body: { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com", phone: "5555550100", notes: "private" },
    });
    const res = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: {
        method: "card",
        card_number: CARD.card_number,
        card_exp: CARD.card_exp,
        person_name: "Ada Lovelace",
        firstname: "Ada",
        lastname: "Lovelace",
        email: "ada@example.com",
      },
      auth: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.customer).toMatchObject({
      firstname: "Ada",
      lastname: "Lovelace",
      email: "ada@example.com",
      phone: "",
      notes: "",
    });
  });
});

describe("money rendering", () => {
  test("formatMoney refuses non-finite and unsafe amounts instead of rendering $∞.NaN", () => {
    expect(formatMoney(123456)).toBe("$1,234.56");
    expect(formatMoney(-500)).toBe("-$5.00");
    for (const bad of [Infinity, -Infinity, NaN, 2 ** 60]) expect(() => formatMoney(bad)).toThrow(RangeError);
  });

  test("a line item whose quantity × price overflows shows a blank amount, and the receipt still sends", async () => {
    expect(lineItemsOf({ lineItems: [{ item: "Gear", quantity: 1e308, price: 10 }] })[0]!.amount).toBe("");
    expect(lineItemsOf({ lineItems: [{ item: "Gear", quantity: -1e308, price: 10 }] })[0]!.amount).toBe("");
    const ctx = await setup();
    const pm = await tokenize(ctx);
    const invoice = await ctx.call("POST", "/invoice", {
      body: {
        customer_id: pm.customer_id,
        total: 9,
        meta: { lineItems: [{ item: "Gear", quantity: 1e308, price: 10 }] },
      },
    });
    expect(invoice.status).toBe(200);
    const paid = await ctx.call("POST", `/invoice/${invoice.body.id}/pay`, { body: { payment_method_id: pm.id } });
    expect(paid.status).toBe(200);
    await ctx.deps.mailer.idle();
    const email = (await ctx.call("GET", "/_sandbox/emails/latest", { auth: false })).body;
    expect(email.html).not.toContain("∞");
    expect(email.html).not.toContain("NaN");
    const page = await (await get(ctx, `/hosted/invoice/${invoice.body.id}`)).text();
    expect(page).not.toContain("∞");
    expect(page).not.toContain("NaN");
  });
});
