/**
 * Targeted faults (POST/GET/DELETE /_sandbox/faults) through the real app, on both databases: each
 * kind, the order and the patterns, the merchant scoping, bad input; and with a real HTTP client on
 * a real server, the dropped connections (reset before, reset after the commit) and the timeout.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { FAULT_MESSAGES, MAX_FAULT_COUNT } from "../../src/services/faults";
import { FAULT_ANSWERS, FAULT_RETRY_AFTER_S } from "../../src/http/pipeline/faults";
import { otherMerchant, serve, setup, tokenize, type TestContext } from "../support/app";
import { countRows } from "../support/database";

let ctx: TestContext;
let server: ReturnType<typeof serve> | null = null;
beforeEach(async () => {
  ctx = await setup();
});
afterEach(async () => {
  await server?.stop();
  server = null;
});

const arm = (body: unknown, auth?: string | false) => ctx.call("POST", "/_sandbox/faults", { body, auth });
const charge = (paymentMethodId: string, headers: Record<string, string> = {}) =>
  ctx.call("POST", "/charge", { body: { payment_method_id: paymentMethodId, total: 13 }, headers });
const transactions = () => countRows(ctx.deps.db, "transactions");

describe("targeted faults, answered", () => {
  test("error_500 answers a 500 in the envelope with X-Sandbox-Fault, runs nothing, then the route works again", async () => {
    const pm = await tokenize(ctx);
    const armed = await arm({ route: "POST /charge", kind: "error_500" });
    expect(armed.status).toBe(200);
    expect(armed.body).toMatchObject({ route: "POST /charge", kind: "error_500", count: 1, remaining: 1 });
    const before = await transactions();
    const failed = await charge(pm.id);
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: "internal_error", message: FAULT_ANSWERS.error500, fault: "error_500" });
    expect(failed.headers.get("x-sandbox-fault")).toBe("error_500");
    expect(await transactions()).toBe(before);
    const next = await charge(pm.id);
    expect(next.status).toBe(200);
    expect(next.headers.get("x-sandbox-fault")).toBeNull();
  });

  test("unavailable_503, then rate_limited_429 with Retry-After, in the order armed, then served", async () => {
    const pm = await tokenize(ctx);
    await arm({ route: "POST /charge", kind: "unavailable_503" });
    await arm({ route: "POST /charge", kind: "rate_limited_429" });
    const first = await charge(pm.id);
    expect([first.status, first.body.code, first.headers.get("retry-after")]).toEqual([
      503,
      "service_unavailable",
      String(FAULT_RETRY_AFTER_S),
    ]);
    expect(first.body.message).toBe(FAULT_ANSWERS.unavailable503);
    const second = await charge(pm.id);
    expect([second.status, second.body.code, second.headers.get("retry-after")]).toEqual([
      429,
      "rate_limited",
      String(FAULT_RETRY_AFTER_S),
    ]);
    expect(second.headers.get("x-sandbox-fault")).toBe("rate_limited_429");
    expect((await charge(pm.id)).status).toBe(200);
  });

  test("latency holds the request latency_ms, then serves it; the fired fault names its transaction", async () => {
    const pm = await tokenize(ctx);
    await arm({ route: "POST /charge", kind: "latency", latency_ms: 300 });
    const started = performance.now();
    const slow = await charge(pm.id);
    const took = performance.now() - started;
    expect(slow.status).toBe(200);
    expect(slow.headers.get("x-sandbox-fault")).toBe("latency");
    expect(took).toBeGreaterThanOrEqual(290);
    const listed = await ctx.call("GET", "/_sandbox/faults");
    expect(listed.body.pending).toEqual([]);
    expect(listed.body.fired).toEqual([
      expect.objectContaining({
        kind: "latency",
        method: "POST",
        path: "/charge",
        latency_ms: 300,
        transaction_id: slow.body.id,
      }),
    ]);
  });

  test("count faults that many matching requests; * patterns match any method or segment; others pass", async () => {
    const pm = await tokenize(ctx);
    await arm({ route: "* /transaction/*", kind: "error_500", count: 2 });
    const sale = await charge(pm.id);
    expect(sale.status).toBe(200);
    expect((await ctx.call("GET", `/transaction/${sale.body.id}`)).status).toBe(500);
    expect((await ctx.call("POST", `/transaction/${sale.body.id}/void`, { body: {} })).status).toBe(500);
    expect((await ctx.call("POST", `/transaction/${sale.body.id}/void`, { body: {} })).status).toBe(200);
  });

  test("pay()'s public routes can be faulted too: the web payments token names the merchant", async () => {
    await arm({ route: "POST /webpayment/*/tokenize", kind: "unavailable_503" });
    const refused = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, {
      body: { method: "card", card_number: "4111111111111111", card_exp: "1230", person_name: "Ada Lovelace" },
      auth: false,
    });
    expect(refused.status).toBe(503);
    expect((await tokenize(ctx)).id).toBeString();
  });

  test("faults are the calling merchant's: another merchant's requests pass, its GET and DELETE see none", async () => {
    const other = await otherMerchant(ctx);
    const otherPm = await tokenize(ctx, {}, other.web_payments_token);
    await arm({ route: "POST /charge", kind: "error_500" });
    const theirs = await ctx.call("POST", "/charge", {
      body: { payment_method_id: otherPm.id, total: 5 },
      auth: other.api_key,
    });
    expect(theirs.status).toBe(200);
    expect((await ctx.call("GET", "/_sandbox/faults", { auth: other.api_key })).body).toEqual({
      pending: [],
      fired: [],
    });
    expect((await ctx.call("DELETE", "/_sandbox/faults", { auth: other.api_key })).body).toEqual({ cleared: 0 });
    expect((await ctx.call("DELETE", "/_sandbox/faults")).body).toEqual({ cleared: 1 });
    expect((await charge((await tokenize(ctx)).id)).status).toBe(200);
  });

  test("the sandbox controls are never faulted, so a test can always look and clear", async () => {
    await arm({ route: "* /*", kind: "error_500", count: 5 });
    expect((await ctx.call("GET", "/_sandbox/faults")).status).toBe(200);
    expect((await ctx.call("GET", "/self")).status).toBe(500);
    expect((await ctx.call("DELETE", "/_sandbox/faults")).body).toEqual({ cleared: 1 });
    expect((await ctx.call("GET", "/self")).status).toBe(200);
  });

  test("bad input is a 422 naming it, and arms nothing", async () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [{ route: "POST /nope", kind: "error_500" }, { route: [FAULT_MESSAGES.routeUnknown("POST /nope")] }],
      [{ route: "GET /charge", kind: "error_500" }, { route: [FAULT_MESSAGES.routeUnknown("GET /charge")] }],
      [{ route: "charge", kind: "error_500" }, { route: [FAULT_MESSAGES.routeShape("charge")] }],
      [{ kind: "error_500" }, { route: [FAULT_MESSAGES.routeRequired] }],
      [
        { route: "POST /_sandbox/reset", kind: "error_500" },
        { route: [FAULT_MESSAGES.routeControl("POST /_sandbox/reset")] },
      ],
      [{ route: "POST /charge", kind: "explode" }, { kind: [FAULT_MESSAGES.kindUnknown("explode")] }],
      [{ route: "POST /charge", kind: "error_500", count: 0 }, { count: [FAULT_MESSAGES.count(0)] }],
      [{ route: "POST /charge", kind: "error_500", count: 10_000_000 }, { count: [FAULT_MESSAGES.count(10_000_000)] }],
      [{ route: "POST /charge", kind: "error_500", count: 1.5 }, { count: [FAULT_MESSAGES.count(1.5)] }],
      [{ route: "POST /charge", kind: "latency" }, { latency_ms: [FAULT_MESSAGES.latencyRequired] }],
      [{ route: "POST /charge", kind: "latency", latency_ms: -4 }, { latency_ms: [FAULT_MESSAGES.latency(-4)] }],
    ];
    for (const [body, errors] of cases) {
      const res = await arm(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 422]);
      expect(res.body).toMatchObject({ code: "validation_error", errors });
    }
    expect((await ctx.call("GET", "/_sandbox/faults")).body).toEqual({ pending: [], fired: [] });
    expect(MAX_FAULT_COUNT).toBe(1000);
  });

  test("a concrete id in the pattern is a route too", async () => {
    const res = await arm({ route: "POST /transaction/abc/refund", kind: "error_500" });
    expect(res.status).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  test("lists the outcome and fault controls with their bodies and answers", async () => {
    const doc = (await ctx.call("GET", "/openapi/json", { auth: false })).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    };
    for (const path of ["/_sandbox/outcomes", "/_sandbox/faults"]) {
      expect(Object.keys(doc.paths[path] ?? {}).sort()).toEqual(["delete", "get", "post"]);
      expect(doc.paths[path]!.post!.requestBody).toBeDefined();
      expect(Object.keys(doc.paths[path]!.post!.responses)).toContain("422");
    }
    expect(doc.paths["/_sandbox/test-cards"]?.get).toBeDefined();
  });
});

describe("the dashboard's transaction page", () => {
  const page = async (id: string) =>
    (await ctx.app.handle(new Request(`http://localhost/dashboard/transactions/${id}`))).text();

  test("shows the decline reason, the check results and the fault that fired", async () => {
    const declined = await charge((await tokenize(ctx, { card_number: "4000000000003071", card_cvv: "201" })).id);
    expect(declined.body.decline_code).toBe("issuer_unavailable");
    const shown = await page(declined.body.transaction.id);
    expect(shown).toContain("Decline reason");
    expect(shown).toContain("<code>issuer_unavailable</code>");
    expect(shown).toContain("retryable");
    expect(shown).toContain("<code>Y</code> Street address and postal code match.");
    expect(shown).toContain("<code>U</code> unavailable");
    expect(shown).not.toContain('id="faults"');

    await arm({ route: "POST /charge", kind: "latency", latency_ms: 20 });
    const slow = await charge((await tokenize(ctx, { address_zip: "20000" })).id);
    const faulted = await page(slow.body.id);
    expect(faulted).toContain('id="faults"');
    expect(faulted).toContain("<code>latency</code> (20 ms)");
    expect(faulted).toContain("POST /charge");
    expect(faulted).toContain("<code>A</code>");
    expect(faulted).toContain("postal code no match");
    expect(faulted).not.toContain("Decline reason");
  });
});

describe("targeted faults, over a real connection", () => {
  const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}`, ...headers },
      body: JSON.stringify(body),
      signal,
    });

  test("reset_after_commit: the connection drops after the charge committed; the retry with its Idempotency-Key finds exactly one charge", async () => {
    server = serve(ctx);
    const pm = await tokenize(ctx);
    await arm({ route: "POST /charge", kind: "reset_after_commit" });
    const before = await transactions();
    const body = { payment_method_id: pm.id, total: 21 };
    const lost = await post(server.url, "/charge", body, { "idempotency-key": "order-42" }).then(
      async (response) => ({ answered: response.status, text: await response.text() }),
      (error: Error & { code?: string }) => ({ dropped: error.code ?? error.name }),
    );
    expect(lost).toEqual({ dropped: "ECONNRESET" });
    expect(await transactions()).toBe(before + 1);
    const retry = await post(server.url, "/charge", body, { "idempotency-key": "order-42" });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const charged = (await retry.json()) as { id: string; total: number };
    expect(charged.total).toBe(21);
    expect(await transactions()).toBe(before + 1);
    const fired = (await ctx.call("GET", "/_sandbox/faults")).body.fired;
    expect(fired).toEqual([expect.objectContaining({ kind: "reset_after_commit", transaction_id: charged.id })]);
  });

  test("reset: the connection drops before the request runs; nothing is written", async () => {
    server = serve(ctx);
    const pm = await tokenize(ctx);
    await arm({ route: "POST /charge", kind: "reset" });
    const before = await transactions();
    const lost = await post(server.url, "/charge", { payment_method_id: pm.id, total: 8 }).then(
      (response) => ({ answered: response.status }),
      (error: Error & { code?: string }) => ({ dropped: error.code ?? error.name }),
    );
    expect(lost).toEqual({ dropped: "ECONNRESET" });
    expect(await transactions()).toBe(before);
    expect((await post(server.url, "/charge", { payment_method_id: pm.id, total: 8 })).status).toBe(200);
  });

  test("timeout: no answer within the client's patience, and nothing is written", async () => {
    server = serve(ctx);
    const pm = await tokenize(ctx);
    await arm({ route: "POST /charge", kind: "timeout" });
    const before = await transactions();
    const started = performance.now();
    const lost = await post(
      server.url,
      "/charge",
      { payment_method_id: pm.id, total: 8 },
      {},
      AbortSignal.timeout(400),
    ).then(
      (response) => ({ answered: response.status }),
      (error: Error) => ({ gaveUp: error.name }),
    );
    expect(lost).toEqual({ gaveUp: "TimeoutError" });
    expect(performance.now() - started).toBeLessThan(5000);
    await Bun.sleep(50);
    expect(await transactions()).toBe(before);
  });
});
