import { beforeEach, describe, expect, test } from "bun:test";
import { BANK, charge, setup, tokenize, waitFor, type TestContext } from "../support/app";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await setup();
});

const list = async (query = "") => (await ctx.call("GET", `/transaction${query}`)).body;

describe("GET /transaction", () => {
  test("lists newest first in the pagination envelope with working page links", async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await charge(ctx, i)).body.id);
    const first = await list("?per_page=2");
    expect(first).toMatchObject({
      current_page: 1,
      per_page: 2,
      total: 5,
      last_page: 3,
      from: 1,
      to: 2,
      prev_page_url: null,
    });
    expect(first.data.map((t: { id: string }) => t.id)).toEqual([ids[4], ids[3]]);
    const next = new URL(first.next_page_url);
    expect(next.searchParams.get("page")).toBe("2");
    const second = await list(`?${next.searchParams}`);
    expect(second.data.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    expect(second.prev_page_url).not.toBeNull();
    const last = await list("?per_page=2&page=3");
    expect(last).toMatchObject({ from: 5, to: 5, next_page_url: null });
    const beyond = await list("?per_page=2&page=9");
    expect(beyond).toMatchObject({ data: [], from: null, to: null });
  });

  test("filters by type, success, method and customer", async () => {
    const card = await tokenize(ctx);
    await ctx.call("POST", "/charge", { body: { payment_method_id: card.id, total: 1 } });
    await ctx.call("POST", "/charge", { body: { payment_method_id: card.id, total: 2, pre_auth: true } });
    await charge(ctx, 3, { card_number: "4012888888881881", email: "other@example.com" });
    await charge(ctx, 4, { ...BANK, email: "bank@example.com" });
    const totals = (page: { data: { total: number }[] }) => page.data.map((t) => t.total).sort();
    expect(totals(await list("?type=pre_auth"))).toEqual([2]);
    expect(totals(await list("?success=false"))).toEqual([3]);
    expect(totals(await list("?success=1"))).toEqual([1, 2, 4]);
    expect(totals(await list("?method=bank"))).toEqual([4]);
    expect(totals(await list(`?customer_id=${card.customer_id}`))).toEqual([1, 2]);
    expect(totals(await list("?keywords=bank@example"))).toEqual([4]);
    expect(totals(await list("?keywords=1881"))).toEqual([3]);
  });

  test("filters by date range on the sandbox clock, both ends inclusive", async () => {
    await charge(ctx, 1);
    const day1 = ctx.deps.clock.timestamp(ctx.merchantId).slice(0, 10);
    await ctx.deps.clock.advance(ctx.merchantId, 2 * 86_400_000);
    await charge(ctx, 2);
    const day3 = ctx.deps.clock.timestamp(ctx.merchantId).slice(0, 10);
    expect((await list(`?startDate=${day1}&endDate=${day1}`)).data.map((t: { total: number }) => t.total)).toEqual([1]);
    expect((await list(`?startDate=${day3}`)).data.map((t: { total: number }) => t.total)).toEqual([2]);
    expect((await list(`?endDate=${day3}`)).total).toBe(2);
  });

  test("bad filters are 422s naming the parameter", async () => {
    const cases: [string, string][] = [
      ["?startDate=yesterday", "startDate"],
      ["?type=payout", "type"],
      ["?success=maybe", "success"],
      ["?per_page=0", "per_page"],
      ["?page=-1", "page"],
    ];
    for (const [query, field] of cases) {
      const res = await ctx.call("GET", `/transaction${query}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
  });
});

describe("the error envelope", () => {
  test("unknown routes are 404 in the envelope", async () => {
    const res = await ctx.call("GET", "/no/such/route");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "No route for GET /no/such/route.", code: "not_found" });
  });

  test("a body that is not JSON is a 400 malformed_json", async () => {
    const res = await ctx.call("POST", "/charge", { raw: '{"total": 5,' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "The request body is not valid JSON.", code: "malformed_json" });
  });

  test("a body over 1 MiB is a 413, declared or streamed", async () => {
    const big = JSON.stringify({ total: 1, meta: { pad: "x".repeat(1024 * 1024) } });
    const declared = await ctx.call("POST", "/charge", { raw: big });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe("payload_too_large");
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
        controller.close();
      },
    });
    const streamed = await ctx.app.handle(
      new Request("http://localhost/charge", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ctx.apiKey}` },
        body: stream,
      }),
    );
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).code).toBe("payload_too_large");
  });

  test("a value that cannot become text is a 422 naming its field, not a 500", async () => {
    // {"toString": null} makes Elysia's own validation message throw while it is built.
    for (const path of [`/webpayment/${ctx.token}/tokenize`, "/customer"]) {
      const res = await ctx.call("POST", path, { raw: '{"phone":[{"toString":null}],"email":{"valueOf":1}}' });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_error");
      expect(Object.keys(res.body.errors).sort()).toEqual(["email", "phone"]);
    }
  });

  test("a bug is a 500 with a request id, logged, with no details leaked", async () => {
    const app = ctx.app.get("/_test/boom", () => {
      throw new Error("secret detail");
    });
    const res = await app.handle(new Request("http://localhost/_test/boom"));
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body.code).toBe("internal_error");
    expect(JSON.stringify(body)).not.toContain("secret detail");
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
    expect(ctx.log.lines.some((line) => line.includes(body.request_id) && line.includes("secret detail"))).toBe(true);
  });

  test("a 5xx is logged with its request id even with request lines off (the default)", async () => {
    const app = ctx.app.get("/_test/boom5", () => {
      throw new Error("boom");
    });
    const res = await app.handle(new Request("http://localhost/_test/boom5"));
    const id = res.headers.get("x-request-id")!;
    expect(res.status).toBe(500);
    expect(ctx.log.lines).toContain(`GET /_test/boom5 500 request ${id}`);
  });

  test("request lines are off by default", async () => {
    await tokenize(ctx);
    await ctx.call("GET", "/transaction");
    await ctx.call("GET", "/no/such/route");
    // The lines would be written after the response is sent: give them the turn they would need.
    await Bun.sleep(50);
    expect(ctx.log.lines.filter((line) => /^(GET|POST) \//.test(line))).toEqual([]);
  });

  test("with --log-requests, lines show method, path, status and time, never a query string or body", async () => {
    ctx = await setup({ config: { logRequests: true } });
    await tokenize(ctx);
    await ctx.call("GET", "/transaction?keywords=secret-query");
    // Lines are written after the response is sent.
    const lines = await waitFor(() => (ctx.log.lines.length >= 2 ? ctx.log.lines.join("\n") : ""), 2000, "log lines");
    expect(lines).toMatch(/POST \/webpayment\/sandbox_web_payments_token\/tokenize 200 [\d.]+ms/);
    expect(lines).toMatch(/GET \/transaction 200 [\d.]+ms/);
    expect(lines).not.toContain("secret-query");
    expect(lines).not.toContain("4111111111111111");
  });
});

describe("OpenAPI", () => {
  test("/openapi/json documents every API route with its request and responses", async () => {
    const res = await ctx.call("GET", "/openapi/json", { auth: false });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    const paths: Record<string, Record<string, { responses?: Record<string, unknown>; requestBody?: unknown }>> = res
      .body.paths;
    const documented = new Set(
      Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)),
    );
    // Pages, scripts, the dashboard and files' bytes (public_url) are for browsers, not part of the API document.
    const PAGES = ["/openapi", "/payjs", "/dashboard", "/hosted", "/_test", "/favicon.ico", "/files/"];
    const routes = ctx.app.routes.filter(
      (r) => r.path !== "/" && r.method !== "OPTIONS" && !PAGES.some((prefix) => r.path.startsWith(prefix)),
    );
    expect(routes.length).toBeGreaterThan(20);
    const undocumented = routes
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, "{$1}")}`)
      .filter((route) => !documented.has(route));
    expect(undocumented).toEqual([]);
    for (const [path, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(Object.keys(op.responses ?? {}).length).toBeGreaterThan(0);
        if (["post", "put"].includes(method) && !path.includes("/_sandbox/") && !path.endsWith("/redeliver")) {
          expect(op.requestBody).toBeDefined();
        }
      }
    }
    expect(paths["/charge"]?.post?.responses).toHaveProperty("402");
  });

  test("the /openapi UI loads its script and styles from the sandbox itself, not a CDN", async () => {
    const page = await ctx.app.handle(new Request("http://localhost/openapi"));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('src="/openapi/assets/swagger-ui-bundle.js"');
    expect(html).not.toMatch(/(src|href)="https?:/);
    for (const asset of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
      const res = await ctx.app.handle(new Request(`http://localhost/openapi/assets/${asset}`));
      expect(res.status).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(10_000);
    }
  });
});
