/**
 * The dashboard over HTTP, without a browser: headers (CSP), escaping in the served HTML, the
 * same-origin JSON rule of its actions, the live-refresh event stream, the loopback guard.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { DASHBOARD_CSP } from "../../src/http/dashboard/routes";
import { escapeHtml, html, queryString } from "../../src/lib/html";
import { deliveryPage } from "../../src/http/dashboard/pages/webhooks";
import { WebhookTargets } from "../../src/services/webhooks/targets";
import { charge, serve, setup, tokenize } from "../support/app";
import { FROM_SOURCES, startServer, type Running } from "../support/process";

const EVIL = "<img src=x onerror=alert(1)>";

describe("the escaping helper", () => {
  test("escapes every interpolated value, in text and in attributes", () => {
    const value = `"><script>alert('x')</script>&`;
    expect(html`<a title="${value}">${value}</a>`.value).toBe(
      `<a title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</a>`,
    );
    expect(escapeHtml("`")).toBe("&#96;");
  });

  test("keeps nested fragments as markup, renders arrays item by item and skips null, undefined and false", () => {
    const items = ["<b>", "ok"];
    // Called without the tag syntax so the formatter leaves the markup alone.
    const list = html(
      Object.assign(["<ul>", "</ul>"], { raw: ["<ul>", "</ul>"] }),
      items.map((i) => html`<li>${i}</li>`),
    );
    expect(list.value).toBe("<ul><li>&lt;b&gt;</li><li>ok</li></ul>");
    const skipped = html(Object.assign(["", "", "", "", ""], { raw: ["", "", "", "", ""] }), null, undefined, false, 0);
    expect(skipped.value).toBe("0");
  });

  test("builds query strings without empty parameters", () => {
    expect(queryString({ status: "declined", method: "", page: 2, to: undefined })).toBe("?status=declined&page=2");
    expect(queryString({})).toBe("");
  });
});

describe("the delivery view and the webhook target allowlist", () => {
  test("a receiver's answer body shows only for targets the sandbox may talk to", () => {
    // The delivery view asks the dispatcher's own rule (src/services/webhooks/targets.ts).
    const shows = (url: string, webhookAllow: string[] = [], host = "127.0.0.1") =>
      new WebhookTargets({ webhookAllow, host }).showsBody(url);
    expect(shows("http://127.0.0.1:4000/hooks")).toBe(true);
    expect(shows("http://localhost/hooks")).toBe(true);
    expect(shows("http://[::1]:9/x")).toBe(true);
    expect(shows("https://example.com/hooks")).toBe(false);
    expect(shows("https://example.com/hooks", ["example.com"])).toBe(true);
    expect(shows("https://example.com/hooks", ["example.com:8443"])).toBe(false);
    expect(shows("https://api.example.com/hooks", ["*.example.com"])).toBe(true);
    expect(shows("https://evil.com/hooks", ["*.example.com"])).toBe(false);
    expect(shows("https://evil.com/hooks", ["*"])).toBe(true);
    // Bound beyond loopback, a loopback receiver's answers are the developer's other local
    // services as a LAN neighbour would see them: hidden unless --webhook-allow names them.
    expect(shows("http://127.0.0.1:4000/hooks", [], "0.0.0.0")).toBe(false);
    expect(shows("http://127.0.0.1:4000/hooks", ["127.0.0.1:4000"], "0.0.0.0")).toBe(true);
    const delivery = {
      id: "d1",
      webhook_id: "w1",
      target_url: "https://example.com/hooks",
      event: "create_transaction",
      record_id: "r1",
      status: "failed",
      attempts: 1,
      max_attempts: 5,
      next_attempt_at: null,
      last_status_code: 500,
      last_error: "HTTP 500",
      delivered_at: null,
      redelivery_of: null,
      payload: { id: "r1" },
      created_at: "2026-01-01 00:00:00",
      attempt_log: [
        {
          attempt: 1,
          started_at: "2026-01-01 00:00:00",
          success: false,
          status_code: 500,
          latency_ms: 3,
          response_snippet: "SECRET-ANSWER",
          request_headers: { "PaySandbox-Signature": "t=1,v1=ab" },
          response_headers: { "content-type": "text/plain" },
          error: "HTTP 500",
        },
      ],
    };
    const hidden = html`${deliveryPage(delivery, { showBodies: false })}`.value;
    expect(hidden).not.toContain("SECRET-ANSWER");
    expect(hidden).toContain("not on the allowlist");
    expect(hidden).toContain("t=1,v1=ab");
    expect(html`${deliveryPage(delivery, { showBodies: true })}`.value).toContain("SECRET-ANSWER");
  });
});

describe("dashboard pages over HTTP", () => {
  test("every page is HTML with the dashboard CSP, no inline script and no inline style", async () => {
    const ctx = await setup();
    const created = await charge(ctx, 12.34);
    const pages = [
      "/",
      "/dashboard/transactions",
      `/dashboard/transactions/${created.body.id}`,
      "/dashboard/invoices",
      "/dashboard/customers",
      `/dashboard/customers/${created.body.customer_id}`,
      "/dashboard/emails",
      "/dashboard/sms",
      "/dashboard/webhooks",
      "/dashboard/deposits",
      "/dashboard/clock",
      "/dashboard/keys",
      "/dashboard/test-cards",
    ];
    for (const path of pages) {
      const res = await ctx.app.handle(new Request(`http://localhost${path}`));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const body = await res.text();
      expect(body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(body).not.toMatch(/\sstyle=/);
      expect(body).not.toMatch(/\son[a-z]+=/);
    }
  });

  test("a customer's name with markup is served escaped on the lists and the record pages", async () => {
    const ctx = await setup();
    const pm = await tokenize(ctx, { firstname: EVIL, lastname: "Mallory" });
    const charged = await ctx.call("POST", "/charge", { body: { payment_method_id: pm.id, total: 3 } });
    for (const path of [
      "/",
      "/dashboard/customers",
      `/dashboard/customers/${pm.customer_id}`,
      "/dashboard/transactions",
      `/dashboard/transactions/${charged.body.id}`,
    ]) {
      const body = await (await ctx.app.handle(new Request(`http://localhost${path}`))).text();
      expect(body).toContain("&lt;img src=x onerror=alert(1)&gt;");
      expect(body).not.toContain(EVIL);
    }
  });

  test("the transactions list filters by every filter of GET /transaction (same names), its state, and the deposit batch", async () => {
    const ctx = await setup();
    const approved = (await charge(ctx, 10, { firstname: "Alan", lastname: "Turing", email: "alan@example.com" })).body;
    const declined = (await charge(ctx, 5, { card_number: "4012888888881881" })).body.transaction;
    const bankPm = await tokenize(ctx, {
      method: "bank",
      bank_account: "9876543210",
      bank_routing: "021000021",
      bank_type: "savings",
      bank_holder_type: "personal",
      card_number: undefined,
      card_exp: undefined,
      card_cvv: undefined,
    });
    const bank = (await ctx.call("POST", "/charge", { body: { payment_method_id: bankPm.id, total: 3 } })).body;
    const rows = async (query: string) => {
      const body = await (await ctx.app.handle(new Request(`http://localhost/dashboard/transactions${query}`))).text();
      return [...body.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]).sort();
    };
    expect(await rows("")).toEqual([approved.id, declined.id, bank.id].sort());
    expect(await rows("?state=declined")).toEqual([declined.id]);
    expect(await rows("?success=false")).toEqual([declined.id]);
    expect(await rows("?state=approved&method=card")).toEqual([approved.id]);
    expect(await rows("?success=true&method=card")).toEqual([approved.id]);
    expect(await rows("?method=bank")).toEqual([bank.id]);
    expect(await rows("?keywords=turing")).toEqual([approved.id]);
    expect(await rows("?keywords=1881")).toEqual([declined.id]);
    expect(await rows(`?customer_id=${approved.customer_id}`)).toEqual([approved.id]);
    expect(await rows("?type=pre_auth")).toEqual([]);
    expect(await rows("?type=charge")).toHaveLength(3);
    const today = ctx.deps.clock.timestamp(ctx.merchantId).slice(0, 10);
    expect(await rows(`?startDate=${today}&endDate=${today}`)).toHaveLength(3);
    expect(await rows("?endDate=2000-01-01")).toEqual([]);
    // A value the list cannot use shows it unfiltered rather than an error page.
    expect(await rows("?type=nonsense&endDate=yesterday")).toHaveLength(3);
    // The same answers as the API's own list with the same query.
    const api = await ctx.call("GET", "/transaction?success=true&method=card");
    expect(api.body.data.map((t: { id: string }) => t.id)).toEqual(await rows("?success=true&method=card"));

    await ctx.deps.clock.advance(ctx.merchantId, 2 * 86_400_000);
    const batch = ctx.deps.sqlite
      .query<{ batch_id: string }, [string]>("SELECT batch_id FROM transactions WHERE id = ?")
      .get(approved.id)!.batch_id;
    expect(batch).toBeTruthy();
    expect(await rows(`?batch_id=${batch}`)).toEqual([approved.id]);
    const deposits = await (await ctx.app.handle(new Request("http://localhost/dashboard/deposits"))).text();
    expect(deposits).toContain(`href="/dashboard/transactions?batch_id=${batch}"`);
  });

  test("no query, id or action body makes a dashboard route answer 5xx", async () => {
    const ctx = await setup();
    await charge(ctx, 1);
    const GETS = [
      "/",
      "/dashboard/transactions",
      "/dashboard/transactions/",
      "/dashboard/invoices",
      "/dashboard/invoices/",
      "/dashboard/customers",
      "/dashboard/customers/",
      "/dashboard/emails",
      "/dashboard/emails/",
      "/dashboard/sms",
      "/dashboard/webhooks",
      "/dashboard/deposits",
      "/dashboard/clock",
      "/dashboard/webhooks/deliveries/",
      "/dashboard/keys",
      "/dashboard/settings",
      "/dashboard/try",
    ];
    const paid = (await charge(ctx, 2)).body.id;
    const POSTS = [
      "/dashboard/clock/advance",
      "/dashboard/merchant",
      "/dashboard/webhooks/redeliver",
      "/dashboard/webhooks",
      "/dashboard/webhooks/x/update",
      "/dashboard/webhooks/x/test",
      "/dashboard/webhooks/x/delete",
      `/dashboard/transactions/${paid}/capture`,
      `/dashboard/transactions/${paid}/refund`,
      `/dashboard/transactions/${paid}/receipt-email`,
      `/dashboard/transactions/${paid}/receipt-sms`,
      "/dashboard/transactions/x/void",
      "/dashboard/settings",
      "/dashboard/settings/surcharge",
      "/dashboard/keys/regenerate",
    ];
    const text = fc.string({ maxLength: 40 });
    const query = fc.dictionary(
      fc.constantFrom(
        "page",
        "status",
        "method",
        "startDate",
        "endDate",
        "keywords",
        "batch_id",
        "type",
        "success",
        "customer_id",
        "state",
        "event",
        "webhook_id",
        "record_id",
        "to",
      ),
      text,
      { maxKeys: 4 },
    );
    // Bodies with the fields the actions read, holding any kind of value.
    const actionBody = fc
      .dictionary(
        fc.constantFrom(
          "total",
          "email",
          "phone",
          "seconds",
          "keys",
          "target_url",
          "event",
          "disabled",
          "ach_settlement_days",
          "avs_zip",
          "avs_street",
          "advanced_customization",
          "delivery_id",
          "back",
        ),
        fc.oneof(text, fc.boolean(), fc.integer(), fc.constant(null)),
        { maxKeys: 6 },
      )
      .map((value) => JSON.stringify(value));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GETS), text, query, async (path, id, params) => {
        const target = `http://localhost${path}${path.endsWith("/") && path !== "/" ? encodeURIComponent(id) || "x" : ""}?${new URLSearchParams(params)}`;
        const res = await ctx.app.handle(new Request(target));
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), fc.oneof(fc.json(), text, actionBody), async (path, body) => {
        const res = await ctx.app.handle(
          new Request(`http://localhost${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", host: "localhost" },
            body,
          }),
        );
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  test("a record of another merchant, or of none, is a 404 page", async () => {
    const ctx = await setup();
    for (const path of ["/dashboard/transactions/nope", "/dashboard/customers/nope", "/dashboard/invoices/nope"]) {
      const res = await ctx.app.handle(new Request(`http://localhost${path}`));
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("not found");
    }
  });

  test("actions accept same-origin JSON only: another site's form or origin changes nothing", async () => {
    const ctx = await setup();
    const advance = (headers: Record<string, string>, body: string) =>
      ctx.app.handle(new Request("http://localhost/dashboard/clock/advance", { method: "POST", headers, body }));
    const crossOrigin = await advance(
      { "content-type": "application/json", origin: "http://evil.example", host: "localhost" },
      '{"seconds":3600}',
    );
    expect(crossOrigin.status).toBe(403);
    const crossSite = await advance(
      { "content-type": "application/json", "sec-fetch-site": "cross-site", host: "localhost" },
      '{"seconds":3600}',
    );
    expect(crossSite.status).toBe(403);
    const formPost = await advance({ "content-type": "text/plain", host: "localhost" }, '{"seconds":3600}');
    expect(formPost.status).toBe(403);
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(0);

    const sameOrigin = await advance(
      {
        "content-type": "application/json",
        origin: "http://localhost",
        "sec-fetch-site": "same-origin",
        host: "localhost",
      },
      '{"seconds":3600}',
    );
    expect(sameOrigin.status).toBe(200);
    const tooFar = await advance({ "content-type": "application/json", host: "localhost" }, '{"seconds":"99999999"}');
    expect(tooFar.status).toBe(422);
    expect(((await tooFar.json()) as { code: string }).code).toBe("validation_error");
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(3_600_000);
    expect(await sameOrigin.json()).toEqual({ redirect: "/dashboard/clock" });
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(3_600_000);
  });

  test("lists paginate 50 to a page, and the next-page link keeps the filters", async () => {
    const ctx = await setup();
    for (let i = 0; i < 51; i++) {
      const res = await ctx.call("POST", "/customer", {
        body: { firstname: `Page${i}`, lastname: "Reader", email: `reader${i}@example.com` },
      });
      expect(res.status).toBe(200);
    }
    const page = async (query: string) =>
      await (await ctx.app.handle(new Request(`http://localhost/dashboard/customers${query}`))).text();
    const rowsOf = (body: string) => [...body.matchAll(/<tr data-id="([^"]+)"/g)].length;
    const first = await page("?keywords=reader");
    expect(rowsOf(first)).toBe(50);
    expect(first).toContain("1–50 of 51");
    expect(first).toContain('href="/dashboard/customers?keywords=reader&amp;page=2" rel="next"');
    const second = await page("?keywords=reader&page=2");
    expect(rowsOf(second)).toBe(1);
    expect(second).toContain('rel="prev"');
    expect(second).not.toContain('rel="next"');
  });

  test("the SMS outbox filters by recipient, as GET /_sandbox/sms?to= does", async () => {
    const ctx = await setup();
    const paid = (await charge(ctx, 3)).body;
    for (const phone of ["5555550111", "5555550222"]) {
      expect((await ctx.call("POST", `/transaction/${paid.id}/receipt-sms`, { body: { phone } })).status).toBe(200);
    }
    const rows = async (query: string) => {
      const body = await (await ctx.app.handle(new Request(`http://localhost/dashboard/sms${query}`))).text();
      return [...body.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);
    };
    const api = (await ctx.call("GET", "/_sandbox/sms?to=5555550222")).body.data.map((m: { id: string }) => m.id);
    expect(api).toHaveLength(1);
    expect(await rows("?to=5555550222")).toEqual(api);
    expect(await rows("")).toHaveLength(2);
  });

  test("the merchant picker sets a cookie that switches every page to that merchant", async () => {
    const ctx = await setup();
    const other = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "Picked Shop" }, auth: false });
    const pick = await ctx.app.handle(
      new Request("http://localhost/dashboard/merchant", {
        method: "POST",
        headers: { "content-type": "application/json", host: "localhost" },
        body: JSON.stringify({ merchant_id: other.body.id }),
      }),
    );
    expect(pick.status).toBe(200);
    const cookie = pick.headers.get("set-cookie")!;
    const [pair, ...attributes] = cookie.split(";").map((part) => part.trim());
    expect(pair).toBe(`paysandbox_merchant=${other.body.id}`);
    expect(attributes.sort()).toEqual(["HttpOnly", "Max-Age=31536000", "Path=/", "SameSite=Strict"]);
    const keys = await ctx.app.handle(
      new Request("http://localhost/dashboard/keys", { headers: { cookie: cookie.split(";")[0]! } }),
    );
    const body = await keys.text();
    expect(body).toContain(other.body.api_key);
    expect(body).not.toContain(ctx.apiKey);

    const unknown = await ctx.app.handle(
      new Request("http://localhost/dashboard/merchant", {
        method: "POST",
        headers: { "content-type": "application/json", host: "localhost" },
        body: JSON.stringify({ merchant_id: "nope" }),
      }),
    );
    expect(unknown.status).toBe(404);
  });

  test("the event stream announces a new transaction of the merchant", async () => {
    const ctx = await setup();
    const served = serve(ctx);
    const controller = new AbortController();
    try {
      const res = await fetch(`${served.url}/dashboard/events`, { signal: controller.signal });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value);
      expect(text).toContain("retry:");
      await charge(ctx, 5);
      const deadline = Date.now() + 5000;
      while (!text.includes("create_transaction") && Date.now() < deadline) {
        text += decoder.decode((await reader.read()).value);
      }
      expect(text).toContain("event: change");
      expect(text).toContain('"name":"create_transaction"');
    } finally {
      controller.abort();
      await served.stop();
    }
  });
});

/** This machine's first non-loopback IPv4 address, if any. */
function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const info of list ?? []) if (info.family === "IPv4" && !info.internal) return info.address;
  return undefined;
}

describe("the dashboard's loopback guard on a real server bound to 0.0.0.0", () => {
  const address = lanAddress();
  const servers: Running[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  if (!address) console.warn("NOTICE: no non-loopback IPv4 interface; the dashboard loopback test is skipped");

  async function start(extra: string[]): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), "paysandbox-dash-"));
    dirs.push(dir);
    const server = await startServer([
      ...FROM_SOURCES,
      "--host",
      "0.0.0.0",
      "--port",
      "0",
      "--db",
      join(dir, "db.sqlite"),
      "--quiet",
      ...extra,
    ]);
    servers.push(server);
    return Number(new URL(server.url).port);
  }

  test.skipIf(!address)(
    "answers 127.0.0.1 and refuses a client on another interface unless --allow-remote",
    async () => {
      const port = await start([]);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
      const remote = await fetch(`http://${address}:${port}/dashboard/keys`);
      expect(remote.status).toBe(403);
      expect(await remote.text()).not.toContain("sandbox_api_key");
      const open = await start(["--allow-remote"]);
      expect((await fetch(`http://${address}:${open}/dashboard/keys`)).status).toBe(200);
    },
    30_000,
  );
});
