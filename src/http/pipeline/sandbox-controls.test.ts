import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { DEFAULT_CONFIG, type Config } from "../../lib/config";
import { memoryLogger } from "../../lib/logger";
import { errorEnvelope } from "./error-envelope";
import { GUARD_MESSAGES } from "./messages";
import { isControlPath, sandboxControlsGuard } from "./sandbox-controls";

function appWith(overrides: Partial<Config> = {}, peer?: string) {
  const app = new Elysia()
    .use(sandboxControlsGuard({ config: { ...DEFAULT_CONFIG, ...overrides } }))
    .use(errorEnvelope({ log: memoryLogger() }))
    .all("/*", () => "reached");
  // A listening server reporting the socket peer (without one, in-process requests count as local).
  if (peer) (app as { server: unknown }).server = { requestIP: () => ({ address: peer }) };
  return async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    return { status: response.status, message: response.status === 200 ? text : JSON.parse(text).message };
  };
}

describe("isControlPath", () => {
  test("the sandbox controls and the dashboard, nothing else", () => {
    for (const path of ["/", "/_sandbox", "/_sandbox/reset", "/dashboard", "/dashboard/transactions"])
      expect(isControlPath(path)).toBe(true);
    for (const path of ["/charge", "/_sandboxes", "/webpayment/t/tokenize", "/openapi"])
      expect(isControlPath(path)).toBe(false);
  });
});

describe("sandboxControlsGuard", () => {
  test("a remote client reaches the API but not the controls, unless --allow-remote-sandbox", async () => {
    const remote = appWith({}, "203.0.113.9");
    expect(await remote("POST", "/charge")).toEqual({ status: 200, message: "reached" });
    expect(await remote("POST", "/_sandbox/reset")).toEqual({ status: 403, message: GUARD_MESSAGES.remoteSandbox });
    expect(await remote("GET", "/dashboard")).toEqual({ status: 403, message: GUARD_MESSAGES.remoteSandbox });
    expect((await appWith({ allowRemote: true }, "203.0.113.9")("GET", "/dashboard")).status).toBe(200);
    expect((await appWith({}, "127.0.0.1")("GET", "/dashboard")).status).toBe(200);
  });

  test("a proxied request has no known client unless --trust-proxy", async () => {
    const proxied = { "x-forwarded-for": "127.0.0.1" };
    expect(await appWith({}, "127.0.0.1")("GET", "/dashboard", proxied)).toEqual({
      status: 403,
      message: GUARD_MESSAGES.proxied,
    });
    expect((await appWith({ trustProxy: true }, "127.0.0.1")("GET", "/dashboard", proxied)).status).toBe(200);
  });

  test("what a page on another site can make a browser send is refused; a top-level navigation that reads is not", async () => {
    const local = appWith();
    expect(await local("POST", "/_sandbox/reset", { "sec-fetch-site": "cross-site" })).toEqual({
      status: 403,
      message: GUARD_MESSAGES.crossSite,
    });
    expect(await local("POST", "/_sandbox/reset", { origin: "https://evil.test" })).toEqual({
      status: 403,
      message: GUARD_MESSAGES.crossSite,
    });
    expect(await local("POST", "/_sandbox/reset", { "content-type": "text/plain" }, "{}")).toEqual({
      status: 403,
      message: GUARD_MESSAGES.notJson,
    });
    const navigation = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" };
    expect((await local("GET", "/dashboard", navigation)).status).toBe(200);
    // curl and SDKs: no Origin, no Sec-Fetch-*, JSON or no body.
    expect((await local("POST", "/_sandbox/reset")).status).toBe(200);
    expect((await local("POST", "/_sandbox/clock", { "content-type": "application/json" }, "{}")).status).toBe(200);
    // The API itself is not a control: a cross-site text/plain POST reaches it (CORS and auth guard it).
    expect(
      (await local("POST", "/charge", { "sec-fetch-site": "cross-site", "content-type": "text/plain" })).status,
    ).toBe(200);
  });
});
