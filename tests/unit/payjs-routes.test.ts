/** The library's routes through app.handle: bundling, caching headers, frame CSP, merchant settings. */
import { beforeAll, describe, expect, test } from "bun:test";
import { statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { browserAssets } from "../../src/http/assets/index";
import { FRAME_CSP } from "../../src/http/payjs/routes";
import { otherMerchant, setup, type TestContext } from "../support/app";

const get = (ctx: TestContext, path: string, headers: Record<string, string> = {}) =>
  ctx.app.handle(new Request(`http://localhost${path}`, { headers }));

describe("GET /payjs.js", () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await setup();
  });

  test("serves minified JavaScript defining window.PayJs, with an ETag and no-cache revalidation", async () => {
    const response = await get(ctx, "/payjs.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(response.headers.get("etag")).toMatch(/^"[0-9a-z]+"$/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("content-encoding")).toBeNull();
    const body = await response.text();
    expect(body).toContain("window.PayJs=");
    expect(body).toContain("document.currentScript");
    expect(body.length).toBeLessThan(40_000);
  });

  test("is gzipped when the client accepts gzip, and the gzipped size is at most 12 KB", async () => {
    const response = await get(ctx, "/payjs.js", { "accept-encoding": "gzip, deflate, br" });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("vary")).toBe("Accept-Encoding");
    const compressed = new Uint8Array(await response.arrayBuffer());
    expect(compressed.byteLength).toBeLessThanOrEqual(12 * 1024);
    const plain = await (await get(ctx, "/payjs.js")).text();
    expect(new TextDecoder().decode(Bun.gunzipSync(compressed))).toBe(plain);
  });

  test("answers 304 without a body to a request with the current ETag", async () => {
    const etag = (await get(ctx, "/payjs.js")).headers.get("etag")!;
    const response = await get(ctx, "/payjs.js", { "if-none-match": etag });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe("");
    expect((await get(ctx, "/payjs.js", { "if-none-match": '"stale"' })).status).toBe(200);
  });

  test("the gzipped representation has its own ETag and revalidates to 304 too", async () => {
    const plain = (await get(ctx, "/payjs.js")).headers.get("etag")!;
    const gzipped = (await get(ctx, "/payjs.js", { "accept-encoding": "gzip" })).headers.get("etag")!;
    expect(gzipped).toBe(`${plain.slice(0, -1)}-gzip"`);
    const revalidated = await get(ctx, "/payjs.js", { "accept-encoding": "gzip", "if-none-match": gzipped });
    expect(revalidated.status).toBe(304);
  });

  test("is loadable from any origin (CORS open)", async () => {
    const response = await get(ctx, "/payjs.js", { origin: "http://shop.example" });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("GET /payjs.d.ts", () => {
  test("serves the typings: PayJs, its options, events, pay() details, the invoice and PayJsError codes", async () => {
    const response = await get(await setup(), "/payjs.d.ts");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/typescript; charset=utf-8");
    const typings = await response.text();
    for (const name of [
      "export declare class PayJs",
      "export declare class PayJsError",
      "export interface PayJsOptions",
      "export interface CardFormMessage",
      "export type ExtraDetails",
      "export interface Invoice",
      "export type PayJsErrorCode",
      "export type ApiErrorCode",
      '"missing_container"',
      '"payment_declined"',
      'on(event: "card_form_complete"',
      'on(event: "card_form_uncomplete"',
    ]) {
      expect(typings).toContain(name);
    }
    expect(typings).not.toContain('from "./codes"');
  });
});

describe("card frame pages", () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await setup();
  });

  for (const field of ["number", "cvv"]) {
    test(`/payjs/frames/${field}.html may be embedded anywhere but runs only the sandbox's script`, async () => {
      const response = await get(ctx, `/payjs/frames/${field}.html`);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const csp = response.headers.get("content-security-policy")!;
      expect(csp).toBe(FRAME_CSP);
      expect(csp).toContain("frame-ancestors *");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(response.headers.get("x-frame-options")).toBeNull();
      const html = await response.text();
      expect(html).toContain('<script src="../frame.js"></script>');
      expect(html).not.toMatch(/<script>(?!<\/script>)/);
    });
  }

  test("/payjs/frame.js is the frames' script, under the same policy", async () => {
    const response = await get(ctx, "/payjs/frame.js");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(await response.text()).toContain("BroadcastChannel");
  });
});

describe("GET /payjs/config/{token}", () => {
  test("tells the library the merchant's address verification settings", async () => {
    const ctx = await setup();
    expect((await ctx.call("GET", `/payjs/config/${ctx.token}`, { auth: false })).body).toEqual({
      avs_zip: false,
      avs_street: false,
    });
    const updated = await ctx.call("PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, {
      body: { avs_zip: true, avs_street: true },
      auth: false,
    });
    expect(updated.status).toBe(200);
    expect((await ctx.call("GET", `/payjs/config/${ctx.token}`, { auth: false })).body).toEqual({
      avs_zip: true,
      avs_street: true,
    });
  });

  test("answers each merchant's own settings, and 401 for an unknown token", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    await ctx.call("PUT", `/_sandbox/merchants/${other.id}/settings`, { body: { avs_zip: true }, auth: false });
    expect((await ctx.call("GET", `/payjs/config/${other.web_payments_token}`, { auth: false })).body).toEqual({
      avs_zip: true,
      avs_street: false,
    });
    expect((await ctx.call("GET", `/payjs/config/${ctx.token}`, { auth: false })).body.avs_zip).toBe(false);
    const unknown = await ctx.call("GET", "/payjs/config/not_a_token", { auth: false });
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe("unauthenticated");
  });
});

describe("bundle cache", () => {
  test("builds once and serves the same bundle; in development it rebuilds when a source file changes", async () => {
    const production = browserAssets({ dev: false });
    const first = await production.get("payjs.js");
    expect(await production.get("payjs.js")).toBe(first);

    const development = browserAssets({ dev: true });
    const before = await development.get("payjs.js");
    expect(await development.get("payjs.js")).toBe(before);
    const file = join(import.meta.dir, "..", "..", "packages", "rules", "validation.ts");
    const stat = statSync(file);
    utimesSync(file, stat.atime, new Date(stat.mtimeMs + 1000));
    try {
      const after = await development.get("payjs.js");
      expect(after).not.toBe(before);
      // Same sources, same bytes: the ETag does not change for a touch.
      expect(after.etag).toBe(before.etag);
    } finally {
      utimesSync(file, stat.atime, stat.mtime);
    }
  });
});
