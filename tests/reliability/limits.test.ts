/**
 * --rate-limit and --chaos: the production-like limits integrators test their retries against.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { RateLimiter, bucketOf, parseRateLimit } from "../../src/http/pipeline/limits";
import { ConfigError, loadConfig } from "../../src/entry/cli";
import { API_KEY, CARD, otherMerchant, serve, setup, tokenize, type TestContext } from "../support/app";
import { countRows } from "../support/database";

/** A payment method made through the service, so chaos cannot interfere with the setup. */
async function methodOf(ctx: TestContext) {
  const merchant = await ctx.deps.services.merchants.getDefault();
  return ctx.deps.db.transaction((tx) => ctx.deps.services.paymentMethods.tokenize(tx, merchant, { ...CARD } as never));
}

const count = (ctx: TestContext, table: string) => countRows(ctx.deps.db, table);

describe("rate limits are off by default", () => {
  test("a default sandbox answers 200 merchant requests in a row without a 429", async () => {
    const ctx = await setup();
    for (let i = 0; i < 200; i++) expect((await ctx.call("GET", "/transaction")).status).toBe(200);
  });
});

describe("--rate-limit PUBLIC/MERCHANT", () => {
  test("parses PUBLIC/MERCHANT and refuses nonsense at start", () => {
    expect(parseRateLimit("10/150")).toEqual({ public: 10, merchant: 150 });
    expect(parseRateLimit("")).toBeNull();
    expect(() => parseRateLimit("fast")).toThrow();
    expect(loadConfig(["--rate-limit", "10/150"], {}).rateLimit).toBe("10/150");
    expect(() => loadConfig(["--rate-limit", "ten"], {})).toThrow(ConfigError);
    expect(() => loadConfig(["--rate-limit", "0/5"], {})).toThrow(ConfigError);
  });

  test("public routes are counted per web payments token: the 4th tokenize of one token is a 429 with Retry-After, another token still passes", async () => {
    const ctx = await setup({ config: { rateLimit: "3/100" } });
    for (let i = 0; i < 3; i++) await tokenize(ctx);
    const before = await count(ctx, "payment_methods");
    const res = await ctx.call("POST", `/webpayment/${ctx.token}/tokenize`, { body: CARD, auth: false });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("rate_limited");
    expect(res.body.message).toContain("rate-limit");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(res.body.retry_after).toBe(Number(res.headers.get("retry-after")));
    // The browser must be able to read the 429: CORS headers are on it too.
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await count(ctx, "payment_methods")).toBe(before);

    const other = await otherMerchant(ctx);
    expect(
      (await ctx.call("POST", `/webpayment/${other.web_payments_token}/tokenize`, { body: CARD, auth: false })).status,
    ).toBe(200);
    // Merchant routes have their own budget.
    expect((await ctx.call("GET", "/transaction")).status).toBe(200);
  });

  test("merchant routes are counted per API key: the 6th request of one key is a 429, another key and /_sandbox still pass", async () => {
    const ctx = await setup({ config: { rateLimit: "100/5" } });
    for (let i = 0; i < 5; i++) expect((await ctx.call("GET", "/transaction")).status).toBe(200);
    const limited = await ctx.call("GET", "/customer");
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("12");
    const other = await otherMerchant(ctx);
    expect((await ctx.call("GET", "/transaction", { auth: other.api_key })).status).toBe(200);
    expect((await ctx.call("GET", "/_sandbox/test-cards", { auth: false })).status).toBe(200);
  });

  test("a charge refused with 429 writes no transaction", async () => {
    const ctx = await setup({ config: { rateLimit: "100/1" } });
    const pm = await tokenize(ctx);
    expect((await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5 } })).status).toBe(200);
    const res = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 5 } });
    expect(res.status).toBe(429);
    expect(await count(ctx, "transactions")).toBe(1);
  });

  test("the bucket refills at LIMIT per minute and Retry-After says when the next request passes", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ public: 2, merchant: 60 }, () => now);
    expect(limiter.take("public", "t:a")).toBeNull();
    expect(limiter.take("public", "t:a")).toBeNull();
    expect(limiter.take("public", "t:a")).toBe(30);
    now += 29_000;
    expect(limiter.take("public", "t:a")).toBe(1);
    now += 1_000;
    expect(limiter.take("public", "t:a")).toBeNull();
    expect(limiter.take("merchant", "k:x")).toBeNull();
  });

  test("requests are bucketed by token on public routes, by key on merchant routes, and /_sandbox is exempt", () => {
    expect(bucketOf("/webpayment/tok/tokenize", `Bearer ${API_KEY}`)).toEqual({ kind: "public", key: "t:tok" });
    expect(bucketOf("/charge", `Bearer ${API_KEY}`)).toEqual({ kind: "merchant", key: `k:${API_KEY}` });
    expect(bucketOf("/charge", null)).toBeNull();
    expect(bucketOf("/_sandbox/reset", `Bearer ${API_KEY}`)).toBeNull();
    expect(bucketOf("/openapi/json", null)).toBeNull();
  });
});

describe("--chaos RATE", () => {
  const servers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const stop of servers) await stop();
  });

  test("refuses a rate outside 0..1 at start", () => {
    expect(() => loadConfig(["--chaos", "2"], {})).toThrow(ConfigError);
    expect(loadConfig(["--chaos", "0.1"], {}).chaos).toBe(0.1);
  });

  test("with --chaos 1 every API request fails with a 500 envelope or stalls past the client timeout, and nothing is written", async () => {
    const ctx = await setup({ config: { chaos: 1 } });
    const pm = await methodOf(ctx);
    const { url, stop } = serve(ctx);
    servers.push(stop);
    const outcomes = { error: 0, stall: 0 };
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        try {
          const res = await fetch(`${url}/charge`, {
            method: "POST",
            headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ payment_method_id: pm.id, total: 1 + i }),
            signal: AbortSignal.timeout(5000), // errors answer at once; stalls hang 35 s
          });
          expect(res.status).toBe(500);
          expect(res.headers.get("x-sandbox-chaos")).toBe("error");
          const body = await res.json();
          expect(body.code).toBe("internal_error");
          expect(body.message).toContain("nothing was written");
          outcomes.error++;
        } catch (error) {
          expect((error as Error).name).toBe("TimeoutError");
          outcomes.stall++;
        }
      }),
    );
    expect(outcomes.error).toBeGreaterThan(0);
    expect(outcomes.stall).toBeGreaterThan(0);
    expect(await count(ctx, "transactions")).toBe(0);
    // Sandbox controls are exempt.
    expect((await fetch(`${url}/_sandbox/test-cards`)).status).toBe(200);
  }, 30_000);

  test("with --chaos 0.5 an integrator retrying with one Idempotency-Key ends with exactly one charge", async () => {
    const ctx = await setup({ config: { chaos: 0.5 } });
    const { url, stop } = serve(ctx);
    servers.push(stop);
    // Tokenize may itself hit chaos: retry it too.
    let pmId: string | undefined;
    for (let attempt = 0; attempt < 60 && !pmId; attempt++) {
      const res = await fetch(`${url}/webpayment/${ctx.token}/tokenize`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "tok-1" },
        body: JSON.stringify(CARD),
        signal: AbortSignal.timeout(1000),
      }).catch(() => null);
      if (res?.status === 200) pmId = (await res.json()).id;
    }
    expect(pmId).toBeDefined();
    const statuses: (number | "timeout")[] = [];
    let charged: any;
    for (let attempt = 0; attempt < 60 && !charged; attempt++) {
      const res = await fetch(`${url}/charge`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${ctx.apiKey}`,
          "content-type": "application/json",
          "idempotency-key": "order-1",
        },
        body: JSON.stringify({ payment_method_id: pmId, total: 12.5 }),
        signal: AbortSignal.timeout(1000),
      }).catch(() => null);
      statuses.push(res?.status ?? "timeout");
      if (res?.status === 200) charged = await res.json();
    }
    expect(charged.total).toBe(12.5);
    expect(await count(ctx, "transactions")).toBe(1);
    expect(await count(ctx, "payment_methods")).toBe(1);
    // Every failed attempt was a chaos 500 or a stall.
    expect(statuses.slice(0, -1).every((s) => s === 500 || s === "timeout")).toBe(true);
  }, 60_000);

  test("chaos is decided before the handler: with --chaos 0.5 over 200 charges, every 200 is a row and no failure left one", async () => {
    const ctx = await setup({ config: { chaos: 0.5 } });
    const { url, stop } = serve(ctx);
    servers.push(stop);
    const method = await methodOf(ctx);
    let ok = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await fetch(`${url}/charge`, {
          method: "POST",
          headers: { authorization: `Bearer ${ctx.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ payment_method_id: method.id, total: 1 + i / 100 }),
          // Far above any real answer on a loaded machine and far below the 35 s stall: a request
          // that timed out here was stalled by chaos, never one the server answered (and wrote) late.
          signal: AbortSignal.timeout(10_000),
        }).catch(() => null);
        if (res?.status === 200) ok++;
        else failed++;
      }),
    );
    expect(ok).toBeGreaterThan(20);
    expect(failed).toBeGreaterThan(20);
    expect(await count(ctx, "transactions")).toBe(ok);
  }, 30_000);
});
