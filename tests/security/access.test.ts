/**
 * Access rules, checked over every route of the OpenAPI document (routes added later are covered):
 * another merchant's records are 404 on every route that takes an id; the public web payments
 * token can call no merchant route; every body over 1 MiB is a 413.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { writeMarker } from "../support/database";

interface Route {
  method: string;
  path: string;
}

const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...CUSTOMER } = CARD;
let ctx: TestContext;
let routes: Route[];
/** Merchant A's record ids (the context's default merchant). */
let ids: Record<string, string>;
let other: { id: string; api_key: string; web_payments_token: string };

/** What every table holds: changes with any insert or delete (tests/support/database.ts). */
let snapshot: () => Promise<string>;

beforeAll(async () => {
  ctx = await setup();
  snapshot = await writeMarker(ctx.deps.db);
  const doc = (await ctx.call("GET", "/openapi/json")).body as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })),
  );
  other = await otherMerchant(ctx);
  const pm = await tokenize(ctx);
  const charge = (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 10 } })).body;
  const preAuth = (await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 4, pre_auth: true } }))
    .body;
  const invoice = (
    await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: { ...CUSTOMER, payment_method_id: pm.id, total: 15 },
      auth: false,
    })
  ).body;
  const paid = await ctx.call("POST", `/webpayment/${ctx.token}/invoice/${invoice.id}/pay`, {
    body: { payment_method_id: pm.id },
    auth: false,
  });
  expect(paid.status).toBe(200);
  const draft = (
    await ctx.call("POST", `/webpayment/${ctx.token}/invoice`, {
      body: { ...CUSTOMER, payment_method_id: pm.id, total: 16 },
      auth: false,
    })
  ).body;
  const hook = (await ctx.call("POST", "/webhook", { body: { target_url: "http://127.0.0.1:9/hook", event: "*" } }))
    .body;
  ids = {
    customer: pm.customer_id,
    paymentMethod: pm.id,
    charge: charge.id,
    preAuth: preAuth.id,
    invoice: invoice.id,
    draft: draft.id,
    webhook: hook.id,
  };
  for (const [what, id] of Object.entries(ids)) expect({ what, id: typeof id }).toEqual({ what, id: "string" });
});

/** Routes of the payment API that take a record id (sandbox controls and pages are checked elsewhere). */
const idRoutes = () =>
  routes.filter((r) => r.path.includes("{id}") && !r.path.startsWith("/_sandbox") && !r.path.startsWith("/hosted"));

describe("another merchant's records", () => {
  test("every route taking an id answers 404 not_found to another merchant's key, for every record of ours, and changes nothing", async () => {
    expect(idRoutes().length).toBeGreaterThan(15);
    for (const route of idRoutes()) {
      for (const [what, id] of Object.entries(ids)) {
        // A path's other parameters get a value the route takes (an enum refused first would say nothing).
        const path = route.path
          .replace("{token}", other.web_payments_token)
          .replace("{id}", id)
          .replace("{method}", "cash");
        const before = await snapshot();
        const body =
          route.method === "GET" || route.method === "DELETE" ? undefined : { payment_method_id: ids.paymentMethod };
        const res = await ctx.call(route.method, path, { auth: other.api_key, body });
        const seen = { route: `${route.method} ${route.path}`, record: what, status: res.status, code: res.body?.code };
        expect(seen).toEqual({ ...seen, status: 404, code: "not_found" });
        expect(JSON.stringify(res.body)).not.toContain(ids.customer!);
        expect(await snapshot()).toBe(before);
      }
    }
    // Every id route times every record, each with a snapshot of the database: seconds on a loaded machine.
  }, 60_000);

  test("our records never appear in another merchant's lists", async () => {
    const lists = routes.filter((r) => r.method === "GET" && !r.path.includes("{") && !r.path.startsWith("/_sandbox"));
    expect(lists.length).toBeGreaterThan(4);
    for (const route of lists) {
      const res = await ctx.call("GET", `${route.path}?per_page=200`, { auth: other.api_key });
      const text = typeof res.body === "string" ? res.body : JSON.stringify(res.body);
      for (const [what, id] of Object.entries(ids))
        expect({ route: route.path, what, leaked: text.includes(id) }).toEqual({
          route: route.path,
          what,
          leaked: false,
        });
    }
  });

  test("another merchant cannot charge, invoice or attach our payment method or customer by id", async () => {
    const charge = await ctx.call("POST", "/charge", {
      body: { payment_method_id: ids.paymentMethod, total: 1 },
      auth: other.api_key,
    });
    expect(charge.status).toBe(404);
    const invoice = await ctx.call("POST", `/webpayment/${other.web_payments_token}/invoice`, {
      body: { ...CUSTOMER, payment_method_id: ids.paymentMethod, total: 1 },
      auth: false,
    });
    expect(invoice.status).toBe(404);
    const tokenized = await ctx.call("POST", `/webpayment/${other.web_payments_token}/tokenize`, {
      body: { ...CARD, customer_id: ids.customer },
      auth: false,
    });
    expect([404, 422]).toContain(tokenized.status);
    expect(JSON.stringify(tokenized.body)).not.toContain("Lovelace");
    const pay = await ctx.call("POST", `/webpayment/${other.web_payments_token}/invoice/${ids.draft}/pay`, {
      body: { payment_method_id: ids.paymentMethod },
      auth: false,
    });
    expect(pay.status).toBe(404);
  });
});

describe("the public web payments token", () => {
  test("is refused (403 forbidden) on every merchant route and writes nothing", async () => {
    let merchantRoutes = 0;
    for (const route of routes) {
      const path = route.path.replace("{token}", ctx.token).replace(/\{\w+\}/g, ids.charge!);
      // A merchant route is one that wants an API key: without credentials it is a 401.
      const anonymous = await ctx.call(route.method, path, {
        auth: false,
        body: route.method === "GET" ? undefined : {},
      });
      if (anonymous.status !== 401 || route.path.startsWith("/webpayment/")) continue;
      merchantRoutes++;
      const before = await snapshot();
      const res = await ctx.call(route.method, path, {
        auth: ctx.token,
        body: route.method === "GET" ? undefined : {},
      });
      const seen = { route: `${route.method} ${route.path}`, status: res.status, code: res.body?.code };
      expect(seen).toEqual({ ...seen, status: 403, code: "forbidden" });
      expect(await snapshot()).toBe(before);
    }
    expect(merchantRoutes).toBeGreaterThan(20);
  });

  test("the API key is not a web payments token either", async () => {
    const res = await ctx.call("POST", `/webpayment/${ctx.apiKey}/tokenize`, { body: CARD, auth: false });
    expect(res.status).toBe(401);
  });
});

describe("bodies over 1 MiB", () => {
  test("are a 413 payload_too_large on every route that takes a body, declared or streamed, and write nothing", async () => {
    const big = JSON.stringify({ total: 1, meta: { pad: "x".repeat(1024 * 1024) } });
    const writable = routes.filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method));
    expect(writable.length).toBeGreaterThan(15);
    for (const route of writable) {
      const path = route.path.replace("{token}", ctx.token).replace(/\{\w+\}/g, ids.charge!);
      const before = await snapshot();
      const declared = await ctx.call(route.method, path, { raw: big });
      expect({ route: `${route.method} ${route.path}`, status: declared.status, code: declared.body?.code }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 413,
        code: "payload_too_large",
      });
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
          controller.close();
        },
      });
      const response = await ctx.app.handle(
        new Request(`http://localhost${path}`, {
          method: route.method,
          headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
          body: stream,
        }),
      );
      expect({ route: `${route.method} ${route.path}`, streamed: response.status }).toEqual({
        route: `${route.method} ${route.path}`,
        streamed: 413,
      });
      expect(await snapshot()).toBe(before);
    }
  });
});
