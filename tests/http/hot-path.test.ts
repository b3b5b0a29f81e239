/**
 * What POST /charge does per request (issue 19, README "Performance"): how many SQL statements it
 * runs, and the caches that spare it the rest — the merchant by key, each merchant's webhooks, the
 * dispatcher's next due time — each dropped when what it holds changes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { buildDeps, composeApp, startWorkers, stopWorkers } from "../../src/entry/app";
import { around } from "../../src/storage/sqlite/group-commit";
import { openSqlite } from "../../src/storage/sqlite/database";
import { countStatements } from "../../src/storage/sqlite/statement-counter";
import { memoryLogger } from "../../src/lib/logger";
import { RETRY_DELAYS_MS } from "../../src/domain/webhook-policy";
import type { WebhookDispatcher } from "../../src/services/webhooks/dispatcher";
import { CARD, charge, otherMerchant, setup, tokenize, waitFor, type TestContext } from "../support/app";
import { startReceiver, type Receiver } from "../support/webhook-receiver";
import { countRows } from "../support/database";
import { sql } from "../../src/storage/database";

const running: TestContext[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const ctx of running.splice(0)) await stopWorkers(ctx.deps);
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

/** The server's stack without a socket: app + group commit, on a database whose statements are counted. */
async function countedServer() {
  // SQLite in both test passes: the statement counter and group commit are SQLite's.
  const storage = await openSqlite(":memory:", { groupCommit: true });
  const db = storage.raw;
  const counter = countStatements(db);
  const deps = await buildDeps({ db: storage, log: memoryLogger(), publicUrl: "http://localhost:7290" });
  const app = composeApp(deps);
  const merchant = await deps.services.merchants.getDefault();
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await around(storage, () =>
      app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { "content-type": "application/json", authorization: `Bearer ${merchant.api_key}`, ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ),
    );
    return { status: response.status, body: (await response.json()) as any };
  };
  const tokenized = async () => (await call("POST", `/webpayment/${merchant.web_payments_token}/tokenize`, CARD)).body;
  return { db, deps, counter, call, tokenized };
}

describe("SQL statements per POST /charge", () => {
  test("a charge reads its payment method and customer and writes once, and runs nothing else but its transaction's edges", async () => {
    const server = await countedServer();
    const warm = await server.tokenized();
    expect((await server.call("POST", "/charge", { payment_method_id: warm.id, total: 1 })).status).toBe(200);
    const pm = await server.tokenized();
    server.counter.take();
    const res = await server.call("POST", "/charge", { payment_method_id: pm.id, total: 10.5 });
    expect(res.status).toBe(200);
    const count = server.counter.take();
    // The payment method and its customer (both named by the request), the transaction (INSERT;
    // the row is what it wrote plus the table's defaults). The merchant comes from the key cache,
    // the webhooks from the outbox cache, the record from what was read and written.
    expect(count.log.filter((sql) => !/^(BEGIN|COMMIT|SAVEPOINT|RELEASE)/.test(sql))).toEqual([
      // The merchant cache's check that no other process has committed since it was filled (no I/O).
      "PRAGMA data_version",
      // With whether an outcome sequence is armed for the card (POST /_sandbox/outcomes), in the same read.
      expect.stringMatching(/^SELECT \*, CASE WHEN EXISTS/),
      expect.stringMatching(/^SELECT \* FROM customers/),
      expect.stringMatching(/^INSERT INTO transactions/),
    ]);
    expect({ read: count.read, write: count.write, control: count.control }).toEqual({ read: 2, write: 1, control: 5 });
    // The record built without reading the row back is the stored one, field for field.
    const stored = await server.call("GET", `/transaction/${res.body.id}`);
    expect(stored.status).toBe(200);
    expect(res.body).toEqual(stored.body);
  });

  test("with an Idempotency-Key a charge adds one read and one write (the stored answer); a replay is one read", async () => {
    const server = await countedServer();
    const warm = await server.tokenized();
    await server.call("POST", "/charge", { payment_method_id: warm.id, total: 1 });
    const pm = await server.tokenized();
    server.counter.take();
    const body = { payment_method_id: pm.id, total: 3 };
    const first = await server.call("POST", "/charge", body, { "idempotency-key": "order-1" });
    expect(first.status).toBe(200);
    expect(server.counter.take()).toMatchObject({ read: 3, write: 2 });
    const replay = await server.call("POST", "/charge", body, { "idempotency-key": "order-1" });
    expect(replay.body.id).toBe(first.body.id);
    expect(server.counter.take()).toMatchObject({ read: 1, write: 0 });
  });

  test("a merchant with a webhook pays one more write per charge (its delivery) and no read for it", async () => {
    const server = await countedServer();
    const sub = await server.call("POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" });
    expect(sub.status).toBe(200);
    const warm = await server.tokenized();
    await server.call("POST", "/charge", { payment_method_id: warm.id, total: 1 });
    const pm = await server.tokenized();
    server.counter.take();
    expect((await server.call("POST", "/charge", { payment_method_id: pm.id, total: 2 })).status).toBe(200);
    const count = server.counter.take();
    expect({ read: count.read, write: count.write }).toEqual({ read: 2, write: 2 });
    expect(count.log).toContainEqual(expect.stringMatching(/^INSERT INTO webhook_deliveries/));
  });

  test("a charge that fails writes nothing", async () => {
    const server = await countedServer();
    const before = server.db.query("SELECT COUNT(*) AS n FROM transactions").get() as { n: number };
    const res = await server.call("POST", "/charge", { payment_method_id: crypto.randomUUID(), total: 5 });
    expect(res.status).toBe(404);
    expect(server.db.query("SELECT COUNT(*) AS n FROM transactions").get()).toEqual(before);
  });
});

describe("the merchant cache", () => {
  test("a key changed through the merchants service stops working at once; the new one works", async () => {
    const ctx = await setup();
    expect((await ctx.call("GET", "/self")).status).toBe(200); // cached now
    const { merchants } = ctx.deps.services;
    await merchants.updateKeys(ctx.merchantId, { apiKey: "sk_rotated_key", webPaymentsToken: "wpt_rotated_token" });
    expect((await ctx.call("GET", "/self")).status).toBe(401);
    const fresh = await ctx.call("GET", "/self", { auth: "sk_rotated_key" });
    expect(fresh.status).toBe(200);
    expect(fresh.body.api_key).toBe("sk_rotated_key");
    // The public token too: the old one is unknown, the new one tokenizes.
    expect(tokenize(ctx)).rejects.toThrow(/401/);
    expect((await tokenize(ctx, {}, "wpt_rotated_token")).id).toBeString();
  });

  test("a key already used by another merchant is refused and changes nothing", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    expect(ctx.deps.services.merchants.updateKeys(ctx.merchantId, { apiKey: other.api_key })).rejects.toThrow(
      /already in use/,
    );
    expect((await ctx.call("GET", "/self")).body.id).toBe(ctx.merchantId);
    expect((await ctx.call("GET", "/self", { auth: other.api_key })).body.id).toBe(other.id);
  });

  test("settings changed through PUT /_sandbox/merchants/{id}/settings apply to the next request of a cached key", async () => {
    const ctx = await setup();
    const other = await otherMerchant(ctx);
    // Warm the cache for the key, then turn AVS zip on: tokenize without a zip must now be refused.
    await tokenize(ctx, { address_zip: "" }, other.web_payments_token);
    expect((await ctx.call("GET", "/self", { auth: other.api_key })).body.settings.avs_zip).toBe(false);
    const put = await ctx.call("PUT", `/_sandbox/merchants/${other.id}/settings`, { body: { avs_zip: true } });
    expect(put.status).toBe(200);
    expect((await ctx.call("GET", "/self", { auth: other.api_key })).body.settings.avs_zip).toBe(true);
    expect(tokenize(ctx, { address_zip: "" }, other.web_payments_token)).rejects.toThrow(/422/);
  });

  test("the dashboard shows a changed key, and the default merchant's configured key replaces a cached one at start", async () => {
    const ctx = await setup();
    expect((await ctx.call("GET", "/self")).status).toBe(200);
    await ctx.deps.services.merchants.updateKeys(ctx.merchantId, { apiKey: "sk_from_the_dashboard" });
    const page = await ctx.app.handle(new Request("http://localhost/dashboard/keys"));
    expect(await page.text()).toContain("sk_from_the_dashboard");
    await ctx.deps.services.merchants.ensureDefault(ctx.token, "sk_configured_again");
    expect((await ctx.call("GET", "/self", { auth: "sk_from_the_dashboard" })).status).toBe(401);
    expect((await ctx.call("GET", "/self", { auth: "sk_configured_again" })).status).toBe(200);
  });
});

describe("the outbox's webhook cache", () => {
  test("a webhook created, deleted, or reset away is seen by the very next change", async () => {
    const ctx = await setup();
    const count = () => countRows(ctx.deps.db, "webhook_deliveries");
    await charge(ctx); // the merchant's (empty) webhook list is cached now
    expect(await count()).toBe(0);
    const hook = (await ctx.call("POST", "/webhook", { body: { target_url: "https://example.com/h", event: "*" } }))
      .body;
    await charge(ctx);
    expect(await count()).toBeGreaterThan(0);
    const afterCreate = await count();
    expect((await ctx.call("DELETE", `/webhook/${hook.id}`)).status).toBe(200);
    await charge(ctx);
    expect(await count()).toBe(afterCreate);
    await ctx.call("POST", "/webhook", { body: { target_url: "https://example.com/h2", event: "*" } });
    await charge(ctx);
    expect((await ctx.call("POST", "/_sandbox/reset")).status).toBe(200);
    await charge(ctx);
    expect(await count()).toBe(0);
  });
});

describe("the webhook dispatcher", () => {
  async function started(): Promise<{ ctx: TestContext; dispatcher: WebhookDispatcher }> {
    const ctx = await setup();
    startWorkers(ctx.deps);
    running.push(ctx);
    const dispatcher = ctx.deps.workers.find((w) => w.name === "webhooks") as WebhookDispatcher;
    return { ctx, dispatcher };
  }

  test("with nothing pending, charges and clock ticks run no due-row scan", async () => {
    const { ctx, dispatcher } = await started();
    const before = dispatcher.scans;
    for (let i = 0; i < 3; i++) expect((await charge(ctx)).status).toBe(200);
    await ctx.deps.clock.tick();
    await ctx.deps.clock.advance(ctx.merchantId, 3600_000);
    await Bun.sleep(20); // a wake-up would be a timer of 0 ms
    expect(dispatcher.scans).toBe(before);
  });

  test("a change for a merchant with a webhook wakes it: the delivery is sent, then ticks scan no more", async () => {
    const { ctx, dispatcher } = await started();
    const r = startReceiver();
    receivers.push(r);
    await ctx.call("POST", "/webhook", { body: { target_url: r.url, event: "create_transaction" } });
    const res = await charge(ctx);
    await waitFor(() => r.delivered().length === 1, 5000, "the delivery");
    expect(r.delivered()[0]!.json.id).toBe(res.body.id);
    const settled = await waitFor(
      async () => {
        const before = dispatcher.scans;
        await ctx.deps.clock.tick();
        return dispatcher.scans === before;
      },
      5000,
      "no scan once delivered",
    );
    expect(settled).toBe(true);
  });

  test("a retry not yet due costs no scan; once the clock reaches it, it is sent", async () => {
    const { ctx, dispatcher } = await started();
    const r = startReceiver((_req, n) => (n === 1 ? 500 : 200));
    receivers.push(r);
    await ctx.call("POST", "/webhook", { body: { target_url: r.url, event: "create_transaction" } });
    await charge(ctx);
    await waitFor(
      () => ctx.deps.db.get(sql`SELECT 1 AS one FROM webhook_deliveries WHERE attempts = 1 AND status = 'pending'`),
      5000,
      "the failed first attempt recorded",
    );
    await Bun.sleep(20);
    const before = dispatcher.scans;
    await ctx.deps.clock.advance(ctx.merchantId, 1000); // not yet due
    await ctx.deps.clock.tick();
    expect(dispatcher.scans).toBe(before);
    expect(r.received).toHaveLength(1);
    await ctx.deps.clock.advance(ctx.merchantId, RETRY_DELAYS_MS[0]!);
    await waitFor(() => r.delivered().length === 1, 5000, "the retry");
    expect(dispatcher.scans).toBeGreaterThan(before);
  });
});

describe("what Elysia prepares for every request", () => {
  test("no hook takes Elysia's cookie jar, so no request builds one; the dashboard's picker still sets and reads its cookie", async () => {
    const ctx = await setup();
    // Elysia reads which context members the app's hooks use (its `inference`, one for the whole
    // app): one hook taking `cookie` made every request, POST /charge too, parse a cookie jar.
    expect((ctx.app as unknown as { inference: { cookie: boolean } }).inference.cookie).toBe(false);
    const other = await ctx.call("POST", "/_sandbox/merchants", { body: { name: "Picked" } });
    const pick = await ctx.app.handle(
      new Request("http://localhost/dashboard/merchant", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ merchant_id: other.body.id }),
      }),
    );
    const cookie = pick.headers.get("set-cookie")!;
    expect(cookie).toBe(`paysandbox_merchant=${other.body.id}; Max-Age=31536000; Path=/; HttpOnly; SameSite=Strict`);
    const page = await ctx.app.handle(
      new Request("http://localhost/dashboard/keys", { headers: { cookie: cookie.split(";")[0]! } }),
    );
    expect(await page.text()).toContain(other.body.api_key);
  });
});
