/**
 * Merchant snapshots (/_sandbox/snapshots): a snapshot, then everything changed (charges, refunds,
 * voids, the clock and the settlement it runs, webhooks and their deliveries, e-mails and SMS,
 * customers, invoices, settings), then the restore: every list and record of the merchant the API
 * answers — every GET route of the OpenAPI document without a path parameter, and each record of
 * each list by its id — is byte for byte what it was. Runs on both databases.
 */
import { describe, expect, test } from "bun:test";
import { CARD, otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { DAY, nextMondayNoon } from "../support/settlement";
import { sql } from "../../src/storage/database";
import { merchantStateTables, SHADOW_PREFIX, SNAPSHOT_TABLES } from "../../src/storage/repositories/sandbox";
import { DERIVED_TABLES, snapshotTables } from "../../src/storage/repositories/snapshots";

/** Real time stands still in these tests, so the merchant's now is the same before and after. */
const FROZEN = nextMondayNoon(Date.now());

async function frozenSetup(): Promise<TestContext> {
  return setup({ now: () => FROZEN, config: { webhookAllow: ["127.0.0.1"] } as never });
}

/** Every GET route of the OpenAPI document: those without a path parameter, and those with one. */
async function getRoutes(ctx: TestContext): Promise<{ lists: string[]; byId: string[] }> {
  const doc = (await ctx.call("GET", "/openapi/json")).body as { paths: Record<string, Record<string, unknown>> };
  const paths = Object.keys(doc.paths).filter((path) => doc.paths[path]!.get && !path.startsWith("/openapi"));
  return {
    lists: paths.filter((path) => !path.includes("{")).sort(),
    // The hosted pages are the customer's (opening one marks the invoice viewed), payjs's config no record.
    byId: paths
      .filter((path) => path.match(/\{/g)?.length === 1 && !path.startsWith("/payjs") && !path.startsWith("/hosted"))
      .sort(),
  };
}

/** Every `id` in an answer, however deep. */
function ids(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) ids(item, into);
  else if (value && typeof value === "object")
    for (const [key, member] of Object.entries(value)) {
      if (key === "id" && typeof member === "string") into.add(member);
      else ids(member, into);
    }
  return into;
}

/**
 * What the API answers about the merchant: each list, then every record route with every id any
 * list named (the answers that are not a 404).
 */
async function everything(ctx: TestContext, auth = ctx.apiKey): Promise<Record<string, string>> {
  const { lists, byId } = await getRoutes(ctx);
  const seen: Record<string, string> = {};
  const found = new Set<string>();
  for (const path of lists) {
    if (path === "/_sandbox/snapshots") continue; // the snapshots themselves are not the state
    const res = await ctx.call("GET", `${path}?per_page=100`, { auth });
    seen[path] = `${res.status} ${typeof res.body === "string" ? res.body : JSON.stringify(res.body)}`;
    ids(res.body, found);
  }
  for (const template of byId) {
    if (template.startsWith("/_sandbox/snapshots")) continue;
    for (const id of [...found].sort()) {
      const path = template.replace(/\{[a-z_]+\}/, id);
      const res = await ctx.call("GET", path, { auth });
      if (res.status !== 404)
        seen[path] = `${res.status} ${typeof res.body === "string" ? res.body : JSON.stringify(res.body)}`;
    }
  }
  return seen;
}

async function ok(ctx: TestContext, method: string, path: string, body?: unknown, auth = ctx.apiKey) {
  const res = await ctx.call(method, path, { body, auth });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A merchant with a bit of everything: customers, charges, a settled sale and its refund, a void, an invoice, webhooks with pending deliveries, e-mails. */
async function busyMerchant(ctx: TestContext) {
  await ok(ctx, "POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" });
  const visa = await tokenize(ctx);
  const sale = await ok(ctx, "POST", "/charge", { payment_method_id: visa.id, total: 40 });
  await ok(ctx, "POST", "/_sandbox/clock/advance", { seconds: DAY / 1000 });
  await ok(ctx, "POST", `/transaction/${sale.id}/refund`, { total: 15 });
  const other = await tokenize(ctx, { email: "grace@example.com", firstname: "Grace", person_name: "Grace Hopper" });
  const voided = await ok(ctx, "POST", "/charge", { payment_method_id: other.id, total: 12 });
  await ok(ctx, "POST", `/transaction/${voided.id}/void`);
  const invoice = await ok(ctx, "POST", "/invoice", { customer_id: visa.customer_id, total: 25, email: CARD.email });
  await ok(ctx, "POST", `/invoice/${invoice.id}/pay`, { payment_method_id: visa.id });
  await ok(ctx, "POST", "/customer", { firstname: "Kept", email: "kept@example.com" });
  await ok(ctx, "POST", `/transaction/${sale.id}/receipt-email`, { email: "copy@example.com" });
  await ok(ctx, "POST", `/transaction/${sale.id}/receipt-sms`, { phone: "5555550199" });
  return { visa, sale };
}

describe("POST /_sandbox/snapshots/{name}/restore", () => {
  test("after charges, refunds, voids, a clock advance, settlement, webhooks, e-mails, customers and settings, every list and record is as it was", async () => {
    const ctx = await frozenSetup();
    const { visa, sale } = await busyMerchant(ctx);
    const before = await everything(ctx);
    expect(Object.keys(before).length).toBeGreaterThan(15);
    expect(before["/transaction"]).toContain(sale.id);

    const totalBefore = (await ok(ctx, "GET", "/transaction?per_page=1")).total;
    const taken = await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    expect(taken).toMatchObject({ name: "base" });
    expect(taken.records).toBeGreaterThan(10);
    expect(taken.tables.transactions).toBe(5); // sale, refund, the voided sale, its void, the invoice's charge

    // Change everything.
    await ok(ctx, "POST", "/_sandbox/clock/advance", { seconds: (3 * DAY) / 1000 });
    await ok(ctx, "POST", `/transaction/${sale.id}/refund`, { total: 5 });
    const more = await ok(ctx, "POST", "/charge", { payment_method_id: visa.id, total: 99 });
    await ok(ctx, "PUT", `/customer/${visa.customer_id}`, { firstname: "Changed", notes: "after the snapshot" });
    await ok(ctx, "POST", "/customer", { firstname: "New" });
    const hooks = await ok(ctx, "GET", "/webhook");
    await ok(ctx, "DELETE", `/webhook/${hooks.data[0].id}`);
    await ok(ctx, "PUT", `/_sandbox/merchants/${ctx.merchantId}/settings`, { avs_zip: true, ach_settlement_days: 5 });
    const after = await everything(ctx);
    expect(after).not.toEqual(before);

    const restored = await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(restored).toEqual(taken);
    const back = await everything(ctx);
    for (const path of Object.keys(before)) expect(`${path} ${back[path]}`).toBe(`${path} ${before[path]}`);
    expect(Object.keys(back).sort()).toEqual(Object.keys(before).sort());
    expect((await ctx.call("GET", `/transaction/${more.id}`)).status).toBe(404);

    // The restored state goes on working: the list total, refunds and the clock pick up where they were.
    const next = await ok(ctx, "POST", "/charge", { payment_method_id: visa.id, total: 7 });
    const page = await ok(ctx, "GET", "/transaction?per_page=1");
    expect(page.data[0].id).toBe(next.id);
    expect(page.total).toBe(totalBefore + 1);
    await ok(ctx, "POST", `/transaction/${sale.id}/refund`, { total: 25 });

    // And again: a snapshot can be restored any number of times.
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    const twice = await everything(ctx);
    for (const path of Object.keys(before)) expect(`${path} ${twice[path]}`).toBe(`${path} ${before[path]}`);
  }, 30_000);

  test("a restore puts back pending webhook deliveries unclaimed, and the clock offset", async () => {
    const ctx = await frozenSetup();
    await busyMerchant(ctx);
    const pending = (await ok(ctx, "GET", "/_sandbox/webhook-deliveries?per_page=100")).data.filter(
      (d: { status: string }) => d.status === "pending",
    );
    expect(pending.length).toBeGreaterThan(0);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "pending" });
    // A dispatcher claims them meanwhile (as a real one would, sending): the restore releases them.
    await ctx.deps.db.run(sql`UPDATE webhook_deliveries SET claimed_by = 'gone' WHERE merchant_id = ${ctx.merchantId}`);
    const clockBefore = await ok(ctx, "GET", "/_sandbox/clock");
    await ok(ctx, "POST", "/_sandbox/clock/advance", { seconds: 600 });
    await ok(ctx, "POST", "/_sandbox/snapshots/pending/restore");
    const claimed = await ctx.deps.db.all(
      sql`SELECT id FROM webhook_deliveries WHERE merchant_id = ${ctx.merchantId} AND claimed_by IS NOT NULL`,
    );
    expect(claimed).toEqual([]);
    expect(await ok(ctx, "GET", "/_sandbox/clock")).toEqual(clockBefore);
    expect(ctx.deps.clock.offsetMs(ctx.merchantId)).toBe(clockBefore.offset_seconds * 1000);
  });

  test("another merchant's records are untouched, also while its requests run during the restore", async () => {
    const ctx = await frozenSetup();
    await busyMerchant(ctx);
    const other = await otherMerchant(ctx);
    const otherVisa = await tokenize(ctx, {}, other.web_payments_token);
    await ok(ctx, "POST", "/charge", { payment_method_id: otherVisa.id, total: 3 }, other.api_key);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "mine" });
    await ok(ctx, "POST", "/customer", { firstname: "Gone after the restore" });

    const charges = Array.from({ length: 10 }, (_, i) =>
      ok(ctx, "POST", "/charge", { payment_method_id: otherVisa.id, total: 10 + i }, other.api_key),
    );
    const restores = Array.from({ length: 3 }, () => ok(ctx, "POST", "/_sandbox/snapshots/mine/restore"));
    await Promise.all([...charges, ...restores]);
    const theirs = await ok(ctx, "GET", "/transaction?per_page=100", undefined, other.api_key);
    expect(theirs.data.length).toBe(11);
    // Their snapshot list is their own.
    expect((await ok(ctx, "GET", "/_sandbox/snapshots", undefined, other.api_key)).data).toEqual([]);
    expect((await ctx.call("POST", "/_sandbox/snapshots/mine/restore", { auth: other.api_key })).status).toBe(404);
  });
});

describe("/_sandbox/snapshots: names, listing, deleting", () => {
  test("a snapshot of a name taken again replaces it; GET lists them; DELETE removes one", async () => {
    const ctx = await frozenSetup();
    const first = await ok(ctx, "POST", "/_sandbox/snapshots", { name: "empty" });
    expect(first).toMatchObject({ name: "empty", records: 0 });
    await tokenize(ctx);
    const again = await ok(ctx, "POST", "/_sandbox/snapshots", { name: "empty" });
    expect(again.records).toBe(2); // the customer and its card
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "v1.card_only" });
    const listed = await ok(ctx, "GET", "/_sandbox/snapshots");
    expect(listed.data.map((s: { name: string }) => s.name)).toEqual(["empty", "v1.card_only"]);
    expect(await ok(ctx, "GET", "/_sandbox/snapshots/empty")).toEqual(again);
    expect(await ok(ctx, "DELETE", "/_sandbox/snapshots/empty")).toEqual({ deleted: true, name: "empty" });
    expect((await ok(ctx, "GET", "/_sandbox/snapshots")).data.map((s: { name: string }) => s.name)).toEqual([
      "v1.card_only",
    ]);
  });

  test("an unknown name is a 404, a bad name a 422, in the error envelope; the reset keeps snapshots", async () => {
    const ctx = await frozenSetup();
    for (const [method, path] of [
      ["POST", "/_sandbox/snapshots/nope/restore"],
      ["DELETE", "/_sandbox/snapshots/nope"],
      ["GET", "/_sandbox/snapshots/nope"],
    ] as const) {
      const res = await ctx.call(method, path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: "not_found", message: "Snapshot not found." });
    }
    for (const name of ["", "-x", "a b", "x".repeat(65), "ünï"]) {
      const res = await ctx.call("POST", "/_sandbox/snapshots", { body: { name } });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_error");
    }
    for (const body of [{}, { name: 5 }, []]) {
      const res = await ctx.call("POST", "/_sandbox/snapshots", { body });
      expect(res.status).toBe(422);
    }
    expect((await ctx.call("POST", "/_sandbox/snapshots/a%20b/restore")).status).toBe(422);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "kept" });
    await ok(ctx, "POST", "/_sandbox/reset");
    expect((await ok(ctx, "GET", "/_sandbox/snapshots")).data.map((s: { name: string }) => s.name)).toEqual(["kept"]);
  });

  test("deleting a merchant deletes its snapshots", async () => {
    const ctx = await frozenSetup();
    const other = await otherMerchant(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "theirs" }, other.api_key);
    await ok(ctx, "DELETE", `/_sandbox/merchants/${other.id}`);
    const left = await ctx.deps.db.all(sql`SELECT name FROM sandbox_snapshots WHERE merchant_id = ${other.id}`);
    expect(left).toEqual([]);
  });
});

describe("snapshots across a schema change", () => {
  test("a column a migration adds after the snapshot: the restore fills its default, and later snapshots copy it", async () => {
    const ctx = await frozenSetup();
    const card = await tokenize(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "old" });
    await ctx.deps.db.run(sql`ALTER TABLE customers ADD COLUMN nickname_later TEXT NOT NULL DEFAULT 'none'`);
    await ok(ctx, "POST", "/customer", { firstname: "New" });
    await ok(ctx, "POST", "/_sandbox/snapshots/old/restore");
    expect((await ok(ctx, "GET", "/customer")).data.map((c: { id: string }) => c.id)).toEqual([card.customer_id]);
    await ctx.deps.db.run(sql`UPDATE customers SET nickname_later = 'set' WHERE id = ${card.customer_id}`);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "new" });
    await ctx.deps.db.run(sql`UPDATE customers SET nickname_later = 'changed' WHERE id = ${card.customer_id}`);
    await ok(ctx, "POST", "/_sandbox/snapshots/new/restore");
    const row = await ctx.deps.db.get<{ nickname_later: string }>(
      sql`SELECT nickname_later FROM customers WHERE id = ${card.customer_id}`,
    );
    expect(row?.nickname_later).toBe("set");
  });
});

describe("the tables a snapshot copies", () => {
  test("are every table of the schema with a merchant_id column, but the snapshots and the derived counters", async () => {
    const ctx = await frozenSetup();
    const db = ctx.deps.db;
    const withMerchant = (
      await db.all<{ name: string }>(
        db.dialect === "sqlite"
          ? sql`SELECT m.name AS name FROM sqlite_master m WHERE m.type = 'table'
                  AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'merchant_id')`
          : sql`SELECT DISTINCT table_name AS name FROM information_schema.columns
                WHERE table_schema = current_schema() AND column_name = 'merchant_id'`,
      )
    )
      .map((row) => row.name)
      .filter((name) => !name.startsWith(SHADOW_PREFIX)) // SQLite's copies of the snapshots' rows
      .sort();
    const copied = await snapshotTables(db);
    expect([...copied, ...DERIVED_TABLES, ...SNAPSHOT_TABLES].sort()).toEqual(withMerchant);
    expect(await merchantStateTables(db)).toEqual([...copied, ...DERIVED_TABLES]);
    // Parents are inserted before their children: customers before payment methods before transactions.
    const order = [...copied].reverse();
    expect(order.indexOf("customers")).toBeLessThan(order.indexOf("payment_methods"));
    expect(order.indexOf("payment_methods")).toBeLessThan(order.indexOf("transactions"));
    expect(order.indexOf("webhooks")).toBeLessThan(order.indexOf("webhook_deliveries"));
    expect(order.indexOf("webhook_deliveries")).toBeLessThan(order.indexOf("webhook_attempts"));
  });
});
