/**
 * The request pipeline's order, through the real app (src/http/pipeline/index.ts, docs/security.md):
 * host check → CORS → the sandbox controls' loopback and cross-site checks → rate limits and chaos
 * → the body (read and parsed) → auth → validation → handler, with the error envelope for any refusal on the way and
 * the request log around it all. Each plugin's own tests (src/http/pipeline/*.test.ts) prove what it
 * does; these prove which one answers when several would.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { GUARD_MESSAGES } from "../../src/http/pipeline/messages";
import type { Config } from "../../src/lib/config";
import { setup, type TestContext } from "../support/app";

const contexts: TestContext[] = [];
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.deps.db.close();
});

async function app(config: Partial<Config> = {}) {
  const ctx = await setup({ config });
  contexts.push(ctx);
  return async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    const response = await ctx.app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, ctx };
  };
}

describe("the request pipeline's order", () => {
  test("the Host check answers first: before CORS's preflight, the controls' checks, chaos and auth", async () => {
    const call = await app({ chaos: 1 });
    const foreign = { host: "rebind.attacker.test" };
    for (const [method, path, headers] of [
      ["OPTIONS", "/webpayment/tok/tokenize", foreign],
      ["POST", "/_sandbox/reset", { ...foreign, "sec-fetch-site": "cross-site" }],
      ["POST", "/charge", foreign],
    ] as const) {
      const res = await call(method, path, headers);
      expect([res.status, res.body.message]).toEqual([403, GUARD_MESSAGES.foreignHost("rebind.attacker.test")]);
      expect(res.headers.get("x-sandbox-chaos")).toBeNull();
    }
  });

  test("the controls' checks come before the limits, the limits before the body and auth", async () => {
    const call = await app({ rateLimit: "1/1" });
    const crossSite = await call("POST", "/_sandbox/reset", { "sec-fetch-site": "cross-site" });
    expect([crossSite.status, crossSite.body.message]).toEqual([403, GUARD_MESSAGES.crossSite]);
    // A key's bucket holds one request a minute, whether the key is known or not.
    const unknownKey = { authorization: "Bearer no-such-key", "content-type": "application/json" };
    expect((await call("POST", "/charge", unknownKey, "{}")).status).toBe(401);
    const limited = await call("POST", "/charge", unknownKey, '{"total":');
    expect([limited.status, limited.body.code]).toEqual([429, "rate_limited"]);
  });

  test("a public route's refusal keeps its CORS headers; the preflight never reaches auth", async () => {
    const call = await app();
    const preflight = await call("OPTIONS", "/webpayment/no-such-token/tokenize");
    expect([preflight.status, preflight.headers.get("access-control-allow-origin")]).toEqual([204, "*"]);
    const refused = await call(
      "POST",
      "/webpayment/no-such-token/tokenize",
      { "content-type": "application/json" },
      "{}",
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("the body is read and parsed before auth, which comes before validation", async () => {
    const call = await app();
    const json = { "content-type": "application/json" };
    expect((await call("POST", "/charge", json, '{"total":')).status).toBe(400);
    expect((await call("POST", "/charge", json, "{}")).status).toBe(401);
  });

  test("the request log covers refusals of the first step too", async () => {
    const call = await app({ logRequests: true });
    const { ctx } = await call("GET", "/self", { host: "rebind.attacker.test" });
    // The line is written after the answer left: wait for it (bounded), not a fixed few ms, which a
    // loaded machine overran.
    const line = /^GET \/self 403 \d+\.\dms$/;
    for (let waited = 0; waited < 2_000 && !ctx.log.lines.some((l: string) => line.test(l)); waited += 5) {
      await Bun.sleep(5);
    }
    expect(ctx.log.lines).toContainEqual(expect.stringMatching(line));
  });
});
