import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { DEFAULT_CONFIG, type Config } from "../../lib/config";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { bucketOf, limits, parseRateLimit, type LimitsOptions } from "./limits";

function appWith(config: Partial<Config>, options: LimitsOptions = {}) {
  const log = memoryLogger();
  // SQLite's counter lives in memory: the database itself is not used.
  const deps = { config: { ...DEFAULT_CONFIG, ...config }, log, db: { dialect: "sqlite" } } as unknown as AppDeps;
  let handled = 0;
  const app = new Elysia()
    .use(limits(deps, options))
    .use(errorEnvelope({ log }))
    .all("/*", () => {
      handled++;
      return "handled";
    });
  const call = async (path: string, headers: Record<string, string> = {}) => {
    const response = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers }));
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: response.status === 200 ? text : JSON.parse(text),
    };
  };
  return { call, log, handled: () => handled };
}

describe("parseRateLimit and bucketOf", () => {
  test('"PUBLIC/MERCHANT" per minute; off spelled empty, 0 or off', () => {
    expect(parseRateLimit("10/150")).toEqual({ public: 10, merchant: 150 });
    for (const off of ["", "0", "off", " OFF "]) expect(parseRateLimit(off)).toBeNull();
    expect(() => parseRateLimit("10")).toThrow('--rate-limit expects "PUBLIC/MERCHANT"');
  });

  test("public routes count per token, merchant routes per key; controls and assets not at all", () => {
    expect(bucketOf("/webpayment/tok%20en/tokenize", null)).toEqual({ kind: "public", key: "t:tok en" });
    expect(bucketOf("/charge", "Bearer k1")).toEqual({ kind: "merchant", key: "k:k1" });
    expect(bucketOf("/charge", null)).toBeNull();
    for (const path of ["/_sandbox/reset", "/dashboard", "/payjs.js", "/openapi/json", "/"])
      expect(bucketOf(path, "Bearer k1")).toBeNull();
  });
});

describe("limits", () => {
  test("over the rate a key gets 429 rate_limited with Retry-After, before its route runs; other keys pass", async () => {
    let now = 0;
    const { call, handled } = appWith({ rateLimit: "1/2" }, { now: () => now });
    const key = { authorization: "Bearer k1" };
    expect((await call("/charge", key)).status).toBe(200);
    expect((await call("/charge", key)).status).toBe(200);
    const limited = await call("/charge", key);
    expect([limited.status, limited.body.code, limited.headers.get("retry-after")]).toEqual([
      429,
      "rate_limited",
      "30",
    ]);
    expect(handled()).toBe(2);
    expect((await call("/charge", { authorization: "Bearer k2" })).status).toBe(200);
    expect((await call("/_sandbox/reset", key)).status).toBe(200);
    now += 30_000; // one request a 30 s refills
    expect((await call("/charge", key)).status).toBe(200);
  });

  test("chaos fails the chosen fraction with a 500 naming it, before the route, and logs it", async () => {
    const draws = [0.9, 0.1, 0.7]; // pass; then fail (0.1 < 0.5), without a stall (0.7)
    const { call, handled, log } = appWith({ chaos: 0.5 }, { random: () => draws.shift() ?? 0.9 });
    expect((await call("/charge")).status).toBe(200);
    const failed = await call("/charge?x=1");
    expect([failed.status, failed.body.code, failed.body.chaos]).toEqual([500, "internal_error", "error"]);
    expect(failed.headers.get("x-sandbox-chaos")).toBe("error");
    expect(handled()).toBe(1);
    expect(log.lines).toContain("chaos: POST /charge failed on purpose");
  });

  test("with both off the plugin adds no hook", () => {
    const deps = { config: DEFAULT_CONFIG, log: memoryLogger() } as unknown as AppDeps;
    expect(limits(deps).event.request ?? []).toHaveLength(0);
  });
});
