/**
 * What a web page can make a developer's browser send to the sandbox, sent byte for byte as
 * browsers send it (form POST, text/plain fetch, Sec-Fetch-*, foreign Origin, a DNS-rebinding
 * Host, proxy headers): through the real app in-process, and against a real server process.
 * Every refusal is a 403 in the error envelope and leaves the data as it was; curl-style calls,
 * same-origin JSON and the public CORS routes keep working.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUARD_MESSAGES } from "../../src/http/pipeline/messages";
import { FROM_SOURCES, startServer, type Running } from "../support/process";
import { charge, setup, TOKEN, CARD, type TestContext } from "../support/app";

/** The headers Chromium sends with a top-level form POST from another site. */
const FORM_FROM_EVIL = {
  "content-type": "application/x-www-form-urlencoded",
  origin: "http://evil.example",
  "sec-fetch-site": "cross-site",
  "sec-fetch-mode": "navigate",
  "sec-fetch-dest": "document",
  "sec-fetch-user": "?1",
};
/** A no-cors fetch with a text/plain body (no preflight) from another site. */
const TEXT_FETCH_FROM_EVIL = {
  "content-type": "text/plain;charset=UTF-8",
  origin: "http://evil.example",
  "sec-fetch-site": "cross-site",
  "sec-fetch-mode": "no-cors",
  "sec-fetch-dest": "empty",
};

async function send(ctx: TestContext, method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await ctx.app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // pages are not JSON
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

describe("sandbox controls refuse what another site's page can send (in-process)", () => {
  test("a cross-site form POST to /_sandbox/reset gets 403 and deletes nothing", async () => {
    const ctx = await setup();
    expect((await charge(ctx, 5)).status).toBe(200);
    const res = await send(ctx, "POST", "/_sandbox/reset", FORM_FROM_EVIL, "x=1");
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "forbidden", message: GUARD_MESSAGES.crossSite });
    expect((await ctx.call("GET", "/transaction")).body.total).toBe(1);
  });

  test("a text/plain fetch to /_sandbox/clock/advance gets 403 and the clock stays", async () => {
    const ctx = await setup();
    const before = ctx.deps.clock.offsetMs(ctx.merchantId);
    const res = await send(ctx, "POST", "/_sandbox/clock/advance", TEXT_FETCH_FROM_EVIL, '{"seconds":3000000000}');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(before);
  });

  test("an older browser without Sec-Fetch-*: a foreign Origin alone is refused, so is a form body alone", async () => {
    const ctx = await setup();
    const foreign = await send(
      ctx,
      "POST",
      "/_sandbox/clock/advance",
      { "content-type": "application/json", origin: "http://evil.example" },
      '{"seconds":60}',
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe(GUARD_MESSAGES.crossSite);
    const form = await send(
      ctx,
      "POST",
      "/_sandbox/clock/advance",
      { "content-type": "application/x-www-form-urlencoded" },
      "seconds=60",
    );
    expect(form.status).toBe(403);
    expect(form.body.message).toBe(GUARD_MESSAGES.notJson);
    const plain = await send(ctx, "POST", "/_sandbox/merchants", { "content-type": "text/plain" }, '{"name":"x"}');
    expect(plain.status).toBe(403);
    const nullOrigin = await send(
      ctx,
      "POST",
      "/_sandbox/reset",
      { "content-type": "application/json", origin: "null" },
      "{}",
    );
    expect(nullOrigin.status).toBe(403);
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(0);
    expect(await ctx.deps.services.merchants.list()).toHaveLength(1);
  });

  test("another port of localhost is same-site, and refused too (dashboard actions as well)", async () => {
    const ctx = await setup();
    const headers = {
      "content-type": "application/json",
      origin: "http://localhost:8000",
      "sec-fetch-site": "same-site",
      "sec-fetch-mode": "cors",
    };
    expect((await send(ctx, "POST", "/_sandbox/clock/advance", headers, '{"seconds":60}')).status).toBe(403);
    expect((await send(ctx, "POST", "/dashboard/clock/advance", headers, '{"seconds":60}')).status).toBe(403);
    const form = await send(ctx, "POST", "/dashboard/clock/advance", FORM_FROM_EVIL, "seconds=60");
    expect(form.status).toBe(403);
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(0);
  });

  test("a cross-site page cannot read sandbox controls as a script or image, but a link to the dashboard opens", async () => {
    const ctx = await setup();
    const script = await send(ctx, "GET", "/_sandbox/merchants", {
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "no-cors",
      "sec-fetch-dest": "script",
    });
    expect(script.status).toBe(403);
    const link = await send(ctx, "GET", "/dashboard/clock", {
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    });
    expect(link.status).toBe(200);
  });

  test("curl, SDKs and the dashboard's own same-origin JSON keep working", async () => {
    const ctx = await setup();
    // curl -X POST with no body: no Content-Type at all.
    expect((await send(ctx, "POST", "/_sandbox/reset", {})).status).toBe(200);
    expect((await ctx.call("POST", "/_sandbox/clock/advance", { body: { seconds: 60 }, auth: false })).status).toBe(
      200,
    );
    const sameOrigin = await send(
      ctx,
      "POST",
      "/dashboard/clock/advance",
      {
        "content-type": "application/json",
        origin: "http://localhost",
        "sec-fetch-site": "same-origin",
        "sec-fetch-mode": "cors",
      },
      '{"seconds":60}',
    );
    expect(sameOrigin.status).toBe(200);
    // A browser typed the URL: Sec-Fetch-Site none.
    const typed = await send(
      ctx,
      "POST",
      "/_sandbox/merchants",
      { "content-type": "application/json; charset=utf-8", "sec-fetch-site": "none" },
      '{"name":"Typed"}',
    );
    expect(typed.status).toBe(200);
  });

  test("the public tokenize route stays CORS-open for any site", async () => {
    const ctx = await setup();
    const res = await send(
      ctx,
      "POST",
      `/webpayment/${TOKEN}/tokenize`,
      {
        "content-type": "application/json",
        origin: "https://shop.example",
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "cors",
      },
      JSON.stringify(CARD),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("the Host allowlist (in-process)", () => {
  test("a DNS-rebinding name or any foreign Host gets 403 on every route, even the public ones", async () => {
    const ctx = await setup();
    for (const host of ["attacker.example", "rebind.127.0.0.1.nip.io:7290", "localhost.evil.example", "127.0.0.2"]) {
      for (const path of ["/_sandbox/merchants", "/self", "/payjs.js", "/", "/openapi"]) {
        const res = await send(ctx, "GET", path, { host, authorization: `Bearer ${ctx.apiKey}` });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ code: "forbidden", message: GUARD_MESSAGES.foreignHost(host) });
      }
    }
    for (const host of ["localhost", "LOCALHOST:7290", "127.0.0.1:7290", "[::1]:7290"])
      expect((await send(ctx, "GET", "/_sandbox/test-cards", { host })).status).toBe(200);
  });

  test("--allow-host NAME opens that name on any port, NAME:PORT on that port only", async () => {
    const ctx = await setup({ config: { allowHost: ["devbox.local", "phone.test:7290"] } });
    expect((await send(ctx, "GET", "/_sandbox/test-cards", { host: "devbox.local:9999" })).status).toBe(200);
    expect((await send(ctx, "GET", "/_sandbox/test-cards", { host: "phone.test:7290" })).status).toBe(200);
    expect((await send(ctx, "GET", "/_sandbox/test-cards", { host: "phone.test:80" })).status).toBe(403);
  });

  test("the public URL's host is allowed (a sandbox behind a name integrators use)", async () => {
    const ctx = await setup({ publicUrl: "https://pay.dev.test" });
    expect((await send(ctx, "GET", "/_sandbox/test-cards", { host: "pay.dev.test" })).status).toBe(200);
    expect((await send(ctx, "GET", "/_sandbox/test-cards", { host: "pay.dev.test:8443" })).status).toBe(403);
  });
});

describe("proxy headers are not trusted without --trust-proxy (in-process)", () => {
  test("X-Forwarded-For claiming loopback does not open /_sandbox; it makes the client unknown", async () => {
    const ctx = await setup();
    const proxyHeaders: Record<string, string>[] = [
      { "x-forwarded-for": "127.0.0.1" },
      { forwarded: "for=127.0.0.1" },
      { "x-real-ip": "127.0.0.1" },
    ];
    for (const header of proxyHeaders) {
      const res = await send(ctx, "POST", "/_sandbox/reset", header);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(GUARD_MESSAGES.proxied);
    }
    // The payment API does not look at client addresses.
    expect(
      (await send(ctx, "GET", "/self", { authorization: `Bearer ${ctx.apiKey}`, "x-forwarded-for": "1.2.3.4" })).status,
    ).toBe(200);
  });

  test("with --trust-proxy the proxy's last X-Forwarded-For hop decides, and X-Forwarded-Host is checked", async () => {
    const ctx = await setup({ config: { trustProxy: true } });
    expect((await send(ctx, "GET", "/_sandbox/test-cards", { "x-forwarded-for": "10.9.8.7, 127.0.0.1" })).status).toBe(
      200,
    );
    const remote = await send(ctx, "GET", "/_sandbox/test-cards", { "x-forwarded-for": "127.0.0.1, 203.0.113.5" });
    expect(remote.status).toBe(403);
    expect(remote.body.message).toBe(GUARD_MESSAGES.remoteSandbox);
    const foreign = await send(ctx, "GET", "/_sandbox/test-cards", { "x-forwarded-host": "evil.example" });
    expect(foreign.status).toBe(403);
  });
});

describe("against a real server process", () => {
  let server: Running;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "paysandbox-cross-site-"));
    server = await startServer([...FROM_SOURCES, "--port", "0", "--db", join(dir, "db.sqlite"), "--quiet"]);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const port = () => new URL(server.url).port;
  const clockOffset = async () =>
    ((await (await fetch(`http://127.0.0.1:${port()}/_sandbox/clock`)).json()) as { offset_seconds: number })
      .offset_seconds;

  test("form POST and text/plain fetch from another site are refused; the clock does not move", async () => {
    expect(await clockOffset()).toBe(0);
    const form = await fetch(`http://127.0.0.1:${port()}/_sandbox/clock/advance`, {
      method: "POST",
      headers: FORM_FROM_EVIL,
      body: "seconds=3000000000",
    });
    expect(form.status).toBe(403);
    expect(((await form.json()) as { code: string }).code).toBe("forbidden");
    const text = await fetch(`http://127.0.0.1:${port()}/_sandbox/reset`, {
      method: "POST",
      headers: TEXT_FETCH_FROM_EVIL,
      body: "{}",
    });
    expect(text.status).toBe(403);
    expect(await clockOffset()).toBe(0);
  });

  test("a rebinding Host is refused, the loopback names on the server's port answer", async () => {
    const rebound = await fetch(`http://127.0.0.1:${port()}/_sandbox/merchants`, {
      headers: { host: `rebind.example:${port()}` },
    });
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toEqual({
      code: "forbidden",
      message: GUARD_MESSAGES.foreignHost(`rebind.example:${port()}`),
    });
    // Loopback names on another port are not this server.
    const otherPort = await fetch(`http://127.0.0.1:${port()}/_sandbox/test-cards`, {
      headers: { host: "localhost:1" },
    });
    expect(otherPort.status).toBe(403);
    for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`])
      expect((await fetch(`http://127.0.0.1:${port()}/_sandbox/test-cards`, { headers: { host } })).status).toBe(200);
  });

  test("X-Forwarded-For: 127.0.0.1 through the socket does not pass the loopback rule", async () => {
    const res = await fetch(`http://127.0.0.1:${port()}/_sandbox/merchants`, {
      headers: { "x-forwarded-for": "127.0.0.1" },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(GUARD_MESSAGES.proxied);
  });

  test("curl-style calls work: create a merchant with JSON, reset with an empty POST", async () => {
    const created = await fetch(`http://127.0.0.1:${port()}/_sandbox/merchants`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"Suite"}',
    });
    expect(created.status).toBe(200);
    const { api_key } = (await created.json()) as { api_key: string };
    const reset = await fetch(`http://127.0.0.1:${port()}/_sandbox/reset`, {
      method: "POST",
      headers: { authorization: `Bearer ${api_key}` },
    });
    expect(reset.status).toBe(200);
  });
});
