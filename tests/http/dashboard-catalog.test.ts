/**
 * The dashboard's catalog pages (issue 30) over real HTTP on loopback: the items and payment
 * links lists and detail pages show every record the API made, escaped, with stock and link state.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serve, setup, type TestContext } from "../support/app";

const EVIL = "<img src=x onerror=alert(1)>";

describe("the catalog pages of the dashboard", () => {
  let ctx: TestContext;
  let sandbox: ReturnType<typeof serve>;
  const get = async (path: string) => {
    const res = await fetch(sandbox.url + path);
    return { status: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    ctx = await setup();
    sandbox = serve(ctx);
  });
  afterAll(() => sandbox?.stop());

  test("items: the list shows each live item with its stock; the detail page its fields; names escaped", async () => {
    const soap = (await ctx.call("POST", "/item", { body: { item: EVIL, code: "S-1", price: 7.11, in_stock: 0 } }))
      .body;
    const mat = (await ctx.call("POST", "/item", { body: { item: "Mat", price: 30, in_stock: 2, low_stock_alert: 3 } }))
      .body;
    const list = await get("/dashboard/items");
    expect(list.status).toBe(200);
    expect(list.body).toContain(`data-id="${soap.id}"`);
    expect(list.body).toContain(`data-id="${mat.id}"`);
    expect(list.body).toContain("out of stock");
    expect(list.body).toContain("2 (low)");
    expect(list.body).not.toContain(EVIL);
    expect(list.body).toContain("&lt;img src=x");
    expect((await get("/dashboard/items?name=mat")).body).not.toContain(`data-id="${soap.id}"`);
    const detail = await get(`/dashboard/items/${mat.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toContain("$30.00");
    expect((await get("/dashboard/items/no-such-item")).status).toBe(404);
  });

  test("payment links: the list shows state, uses and sales; the detail page links to the hosted page", async () => {
    const made = (
      await ctx.call("POST", "/query/payment-links", { body: { common_name: "Class pass", amount: 12, max_uses: 3 } })
    ).body.body;
    await ctx.call("PUT", `/query/payment-links/${made.id}/update-stats`, { body: { total: 12 } });
    const list = await get("/dashboard/payment-links");
    expect(list.status).toBe(200);
    expect(list.body).toContain(`data-id="${made.id}"`);
    expect(list.body).toContain("Class pass");
    expect(list.body).toContain("1 / 3");
    expect(list.body).toContain("payable");
    const detail = await get(`/dashboard/payment-links/${made.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toContain(`href="${made.tinyurl}"`);
    expect(detail.body).toContain("$12.00");
    await ctx.call("PUT", `/query/payment-links/${made.id}`, { body: { active: false } });
    expect((await get("/dashboard/payment-links")).body).toContain(">inactive<");
    expect((await get("/dashboard/payment-links/0000")).status).toBe(404);
  });
});
