/**
 * Payment links (issue 30): /query/payment-links and the payment through a link's page
 * (POST /webpayment/{token}/payment-link/{id}/pay, what /hosted/link/{id} sends after tokenize),
 * with expiry on the sandbox clock, single-use and usage statistics; answers compared with the
 * real examples (tests/fixtures/real-api/).
 */
import { describe, expect, test } from "bun:test";
import { LINK_MESSAGES } from "../../src/services/catalog/link-rules";
import { LINE_ITEM_MESSAGES } from "../../src/services/catalog/line-items";
import { ITEM_MESSAGES } from "../../src/services/catalog/items";
import { setup, tokenize, waitFor, type TestContext } from "../support/app";
import { realOperation, shapeDifferences } from "../support/real-api";

const real = (answer: unknown, method: string, path: string, depth = 2) =>
  shapeDifferences(answer, realOperation(method, path).example, depth);

async function link(ctx: TestContext, body: Record<string, unknown>) {
  const res = await ctx.call("POST", "/query/payment-links", { body: { common_name: "Yoga class", ...body } });
  if (res.status !== 201) throw new Error(`POST /query/payment-links: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.body as { id: string; tinyurl: string; amount: number };
}

/** Tokenizes a card and pays through the link, as its page does. */
async function payLink(ctx: TestContext, id: string, extra: Record<string, unknown> = {}, card = {}) {
  const pm = await tokenize(ctx, card);
  return ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${id}/pay`, {
    body: { payment_method_id: pm.id, firstname: "Ada", lastname: "Lovelace", email: "ada@example.com", ...extra },
    auth: false,
  });
}

const getLink = async (ctx: TestContext, id: string) => (await ctx.call("GET", `/query/payment-links/${id}`)).body.data;
const invoiceCount = async (ctx: TestContext) => (await ctx.call("GET", "/invoice")).body.total;

describe("POST and GET /query/payment-links", () => {
  test("a link of the real inline product costs price × quantity + tax, answers the real envelopes", async () => {
    const ctx = await setup();
    const res = await ctx.call("POST", "/query/payment-links", {
      body: {
        url: "https://shop.example/pay/",
        common_name: "sameple link",
        link_meta: { item: "Mat", price: 100, quantity: 2, tax: 10, memo: "Thanks!", buttonText: "Buy" },
        active: 1,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 201, message: "Payment Link created" });
    expect(real(res.body, "POST", "/query/payment-links")).toEqual([]);
    const created = res.body.body;
    expect(created.id).toMatch(/^[0-9a-f]{32}$/);
    expect(created).toMatchObject({
      amount: 210,
      active: 1,
      is_active: true,
      inactive_reason: null,
      uses: 0,
      max_uses: null,
      total_sales: 0,
      total_transactions: 0,
      url: "https://shop.example/pay/",
      tinyurl: `http://localhost:7290/hosted/link/${created.id}`,
    });
    expect(created.link_meta).toMatchObject({ paymentLinkId: created.id, total: 210, memo: "Thanks!" });
    const read = await ctx.call("GET", `/query/payment-links/${created.id}`);
    expect(read.body.data).toEqual(created);
    expect(real(read.body, "GET", "/query/payment-links/{id}")).toEqual([]);
  });

  test("catalog line items set the amount; a wrong amount, a deleted item or no price is a 422 that writes nothing", async () => {
    const ctx = await setup();
    const mat = (await ctx.call("POST", "/item", { body: { item: "Mat", price: 30, in_stock: 4 } })).body;
    const gone = (await ctx.call("POST", "/item", { body: { item: "Old", price: 1 } })).body;
    await ctx.call("DELETE", `/item/${gone.id}`);
    const lines = { lineItems: [{ id: mat.id, quantity: 2 }], tax: 4.8 };
    const made = await link(ctx, { link_meta: lines });
    expect(made.amount).toBe(64.8);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ link_meta: lines, amount: 60 }, "amount", LINK_MESSAGES.amountMismatch("64.80")],
      [{ link_meta: { lineItems: [{ id: gone.id }] } }, "meta.lineItems.0.id", LINE_ITEM_MESSAGES.deletedItem(gone.id)],
      [{ link_meta: { memo: "no price" } }, "amount", LINK_MESSAGES.amountRequired],
      [{ amount: -5 }, "amount", "The amount must be greater than 0."],
      [
        { link_meta: { ...lines, isTotalEditable: true } },
        "link_meta.isTotalEditable",
        LINK_MESSAGES.editableWithItems,
      ],
      [{ amount: 5, link_meta: { total: 6 } }, "amount", LINK_MESSAGES.totalsDiffer],
      [{ amount: 5, link_meta: { item: "Tea", price: 7.111 } }, "link_meta.price", ITEM_MESSAGES.priceInvalid],
      [{ link_meta: { item: "Tea", price: "7", tax: "0.555" } }, "link_meta.tax", ITEM_MESSAGES.taxInvalid],
    ];
    for (const [body, field, message] of cases) {
      const res = await ctx.call("POST", "/query/payment-links", { body: { common_name: "x", ...body } });
      expect({ field, status: res.status, errors: res.body.errors?.[field] }).toEqual({
        field,
        status: 422,
        errors: [message],
      });
    }
    expect((await ctx.call("POST", "/query/payment-links", { body: { amount: 5 } })).status).toBe(422);
    expect((await ctx.call("GET", "/query/payment-links")).body.data.total).toBe(1);
  });

  test("the list filters by active and keywords, sorts, pages, in the real paginator", async () => {
    const ctx = await setup();
    const a = await link(ctx, { common_name: "Alpha", amount: 30 });
    await link(ctx, { common_name: "Beta", amount: 10, link_meta: { memo: "spring sale" } });
    await link(ctx, { common_name: "Gamma", amount: 20, active: 0 });
    const names = async (query: string) =>
      ((await ctx.call("GET", `/query/payment-links${query}`)).body.data.data as { common_name: string }[]).map(
        (l) => l.common_name,
      );
    expect(await names("")).toEqual(["Gamma", "Beta", "Alpha"]);
    expect(await names("?active=1")).toEqual(["Beta", "Alpha"]);
    expect(await names("?active=false")).toEqual(["Gamma"]);
    expect(await names("?keywords[]=SPRING")).toEqual(["Beta"]);
    expect(await names("?keywords[]=a&keywords[]=ph")).toEqual(["Alpha"]);
    expect(await names("?sort=amount&order=asc")).toEqual(["Beta", "Gamma", "Alpha"]);
    const page = (await ctx.call("GET", "/query/payment-links?per_page=2&page=2")).body;
    expect(page.data).toMatchObject({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3 });
    expect(page.data.first_page_url).toContain("page=1");
    expect(real(page, "GET", "/query/payment-links")).toEqual([]);
    await ctx.call("DELETE", `/query/payment-links/${a.id}`);
    expect(await names("")).toEqual(["Gamma", "Beta"]);
  });
});

describe("PUT, DELETE, is-active and update-stats", () => {
  test("PUT deactivates and changes fields; DELETE answers the real message and the link is gone", async () => {
    const ctx = await setup();
    const made = await link(ctx, { amount: 15 });
    const off = await ctx.call("PUT", `/query/payment-links/${made.id}`, {
      body: { active: false, common_name: "Off" },
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ status: 200, message: "Payment Link updated" });
    expect(off.body.body).toMatchObject({ common_name: "Off", active: 0, amount: 15, is_active: false });
    expect(real(off.body, "PUT", "/query/payment-links/{id}")).toEqual([]);
    const state = await ctx.call("GET", `/query/payment-links/${made.id}/is-active`);
    expect(state.body).toEqual({ id: made.id, is_active: false, reason: "inactive" });
    const on = await ctx.call("PUT", `/query/payment-links/${made.id}`, { body: { active: true, amount: 16 } });
    expect(on.body.body).toMatchObject({ active: 1, amount: 16, is_active: true });
    const deleted = await ctx.call("DELETE", `/query/payment-links/${made.id}`);
    expect(deleted.body).toEqual({ status: 200, message: "Payment Link Deleted" });
    expect(real(deleted.body, "DELETE", "/query/payment-links/{id}")).toEqual([]);
    expect((await ctx.call("GET", `/query/payment-links/${made.id}`)).status).toBe(404);
    expect((await ctx.call("PUT", `/query/payment-links/${made.id}`, { body: { amount: 1 } })).status).toBe(404);
  });

  test("update-stats counts a sale made elsewhere; a used-up link refuses it", async () => {
    const ctx = await setup();
    const made = await link(ctx, { amount: 100, max_uses: 2 });
    const res = await ctx.call("PUT", `/query/payment-links/${made.id}/update-stats`, { body: { total: 300 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 200,
      message: "Payment Link Updated",
      body: { total: 300, total_transactions: 1 },
    });
    expect(real(res.body, "PUT", "/query/payment-links/{id}/update-stats")).toEqual([]);
    expect(
      (await ctx.call("PUT", `/query/payment-links/${made.id}/update-stats`, { body: { total: -1 } })).status,
    ).toBe(422);
    await ctx.call("PUT", `/query/payment-links/${made.id}/update-stats`, { body: { total: "50.25" } });
    const used = await ctx.call("PUT", `/query/payment-links/${made.id}/update-stats`, { body: { total: 1 } });
    expect([used.status, used.body.code, used.body.reason]).toEqual([422, "invalid_state", "used_up"]);
    expect(await getLink(ctx, made.id)).toMatchObject({ uses: 2, total_sales: 350.25, total_transactions: 2 });
  });
});

describe("paying through a link", () => {
  test("makes a PAID invoice and a charge, e-mails the receipt and counts the sale; single-use refuses a second", async () => {
    const ctx = await setup();
    const made = await link(ctx, { amount: 42.5, max_uses: 1, link_meta: { memo: "One class" } });
    const paid = await payLink(ctx, made.id);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: "PAID", total: 42.5, is_webpayment: true });
    expect(paid.body.meta).toMatchObject({ payment_link_id: made.id, memo: "One class", reference: "Yoga class" });
    expect(paid.body.child_transactions[0]).toMatchObject({ success: true, total: 42.5, type: "charge" });
    const email = await waitFor(async () => {
      const latest = await ctx.call("GET", "/_sandbox/emails/latest", { auth: false });
      return latest.status === 200 && latest.body;
    });
    expect([email.kind, email.to, email.invoice_id]).toEqual(["receipt", "ada@example.com", paid.body.id]);
    expect(await getLink(ctx, made.id)).toMatchObject({
      uses: 1,
      total_sales: 42.5,
      total_transactions: 1,
      is_active: false,
      inactive_reason: "used_up",
    });
    const before = await invoiceCount(ctx);
    const again = await payLink(ctx, made.id);
    expect([again.status, again.body.code, again.body.reason]).toEqual([422, "invalid_state", "used_up"]);
    expect(again.body.message).toBe(LINK_MESSAGES.notPayable("used_up"));
    expect(await invoiceCount(ctx)).toBe(before);
  });

  test("a declined card leaves the link unused; a single-use link paid at once is paid exactly once", async () => {
    const ctx = await setup();
    const made = await link(ctx, { amount: 10, max_uses: 1 });
    const declined = await payLink(ctx, made.id, {}, { card_number: "4012888888881881" });
    expect([declined.status, declined.body.invoice.status]).toEqual([402, "ATTEMPTED"]);
    expect((await getLink(ctx, made.id)).uses).toBe(0);
    const pms = await Promise.all(Array.from({ length: 4 }, () => tokenize(ctx)));
    const answers = await Promise.all(
      pms.map((pm) =>
        ctx.call("POST", `/webpayment/${ctx.token}/payment-link/${made.id}/pay`, {
          body: { payment_method_id: pm.id, firstname: "Ada", lastname: "Lovelace" },
          auth: false,
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422, 422, 422]);
    expect(await getLink(ctx, made.id)).toMatchObject({ uses: 1, total_transactions: 1, total_sales: 10 });
  });

  test("an expired link (on the sandbox clock) and an inactive one refuse payment; an editable one takes the customer's total", async () => {
    const ctx = await setup();
    const now: string = (await ctx.call("GET", "/_sandbox/clock")).body.now;
    const tomorrow = new Date(Date.parse(`${now.replace(" ", "T")}Z`) + 86_400_000).toISOString().slice(0, 10);
    const expiring = await link(ctx, { amount: 5, expires_at: tomorrow });
    expect((await ctx.call("GET", `/query/payment-links/${expiring.id}/is-active`)).body.is_active).toBe(true);
    await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 2 * 86_400 } });
    expect((await ctx.call("GET", `/query/payment-links/${expiring.id}/is-active`)).body).toEqual({
      id: expiring.id,
      is_active: false,
      reason: "expired",
    });
    const before = await invoiceCount(ctx);
    const late = await payLink(ctx, expiring.id);
    expect([late.status, late.body.code, late.body.reason]).toEqual([422, "invalid_state", "expired"]);
    const off = await link(ctx, { amount: 5, active: false });
    expect((await payLink(ctx, off.id)).body.reason).toBe("inactive");
    expect(await invoiceCount(ctx)).toBe(before);
    const tip = await link(ctx, { common_name: "Tip jar", link_meta: { isTotalEditable: true } });
    expect(tip.amount).toBe(0);
    expect((await payLink(ctx, tip.id)).status).toBe(422);
    const given = await payLink(ctx, tip.id, { total: "12.34" });
    expect([given.status, given.body.total]).toEqual([200, 12.34]);
    const fixed = await link(ctx, { amount: 5 });
    const wrong = await payLink(ctx, fixed.id, { total: 4 });
    expect(wrong.body.errors?.total).toEqual([LINK_MESSAGES.totalFixed("5.00")]);
  });
});
