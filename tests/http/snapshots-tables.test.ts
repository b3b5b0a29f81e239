/**
 * A snapshot covers every table of the merchant's state, found in the schema: a merchant with rows
 * in each of them (schedules and their runs, items, payment links, files, ACH returns, deposit
 * adjustments, disputes, webhooks and their attempts, outcomes, fixtures, idempotency keys…) is
 * snapshotted, changed through the API, then reset, and after each restore every table holds the
 * snapshot's rows column for column (on SQLite in the same order). A table a migration adds is
 * compared without a line here; it must have rows in the snapshot (or be named in LEFT_EMPTY with
 * why), so a new kind of record gets made below. Both databases.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startWorkers, stopWorkers } from "../../src/entry/app";
import { sql } from "../../src/storage/database";
import { snapshotTables } from "../../src/storage/repositories/snapshots";
import { setup, tokenize, waitFor, type TestContext } from "../support/app";
import { onPostgres } from "../support/database";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

/** Tables of the merchant's state this test leaves without rows, each with why. */
const LEFT_EMPTY: Record<string, string> = {};

const EXAMPLES = join(import.meta.dir, "../../examples/fixtures");
const example = (file: string) => JSON.parse(readFileSync(join(EXAMPLES, file), "utf8"));

let receiver: Receiver | undefined;
let working: TestContext | undefined;
afterEach(async () => {
  if (working) await stopWorkers(working.deps);
  await receiver?.stop();
  receiver = working = undefined;
});

async function ok(ctx: TestContext, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await ctx.call(method, path, { body, headers });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Every row of the merchant in every table a snapshot copies: SQLite in rowid order, PostgreSQL sorted. */
async function stateRows(ctx: TestContext): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const table of (await snapshotTables(ctx.deps.db)).sort()) {
    const all = await ctx.deps.db.all<Record<string, unknown>>(
      sql`SELECT * FROM ${sql.raw(`"${table}"`)} WHERE merchant_id = ${ctx.merchantId}
          ${sql.raw(onPostgres ? "" : "ORDER BY rowid")}`,
    );
    rows[table] = onPostgres ? all.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : all;
  }
  return rows;
}

/** POST /file as a client sends it (multipart). */
async function upload(ctx: TestContext, name: string, text: string) {
  const form = new FormData();
  form.append("name", name);
  form.append("file", new Blob([text], { type: "text/plain" }), `${name}.txt`);
  const res = await ctx.app.handle(
    new Request("http://localhost/file", {
      method: "POST",
      headers: { authorization: `Bearer ${ctx.apiKey}` },
      body: form,
    }),
  );
  expect(res.status).toBe(200);
}

/** A merchant with rows in every table of its state. */
async function everyKindOfRecord(ctx: TestContext) {
  receiver = startReceiver();
  await ok(ctx, "POST", "/webhook", { target_url: receiver.url, event: "*" });
  // A dispute (5 days), an ACH return (10 days), a subscription (75 days): deposits, adjustments, e-mails.
  await ok(ctx, "POST", "/_sandbox/fixtures", example("disputed-charge.json"));
  await ok(ctx, "POST", "/_sandbox/fixtures", example("ach-returned-r01.json"));
  await ok(ctx, "POST", "/_sandbox/fixtures", { ...example("subscription-three-months-in.json"), once: true });
  const card = await tokenize(ctx);
  const sale = await ok(ctx, "POST", "/charge", { payment_method_id: card.id, total: 12 }, { "idempotency-key": "k1" });
  await ok(ctx, "POST", `/transaction/${sale.id}/receipt-sms`, { phone: "5555550199" });
  const invoice = await ok(ctx, "POST", "/invoice", { customer_id: card.customer_id, total: 25 });
  await ok(ctx, "POST", `/invoice/${invoice.id}/pay`, { payment_method_id: card.id });
  const cash = await ok(ctx, "POST", "/invoice", { customer_id: card.customer_id, total: 8 });
  await ok(ctx, "POST", `/invoice/${cash.id}/pay/cash?payment_note=desk`);
  await ok(ctx, "POST", "/_sandbox/outcomes", { payment_method_id: card.id, outcomes: ["insufficient_funds"] });
  await ok(ctx, "POST", "/item", { item: "Soap", code: "SOAP-1", price: 7.11, in_stock: 5 });
  await ok(ctx, "POST", "/query/payment-links", { common_name: "Soap link", amount: 2 });
  await upload(ctx, "receipt", "Shipped on 3 May.");
  // The deliveries sent, so their attempts are logged.
  working = ctx;
  startWorkers(ctx.deps);
  const pending = async () =>
    (await ctx.deps.db.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE merchant_id = ${ctx.merchantId} AND status = 'pending'`,
    ))!.n;
  await waitFor(async () => Number(await pending()) === 0, 20_000, "every delivery sent");
  await stopWorkers(ctx.deps);
  working = undefined;
}

/** What a test may do after the snapshot: time passes (schedules run, disputes decided), money moves, records change. */
async function changeEverything(ctx: TestContext) {
  await ok(ctx, "POST", "/_sandbox/clock/advance", { seconds: 40 * 86_400 });
  const card = await tokenize(ctx, { email: "later@example.com", firstname: "Later" });
  const sale = await ok(ctx, "POST", "/charge", { payment_method_id: card.id, total: 30 });
  await ok(ctx, "POST", `/transaction/${sale.id}/void`);
  const [schedule] = (await ok(ctx, "GET", "/invoice/schedule")).data;
  await ok(ctx, "PUT", `/invoice/schedule/${schedule.id}`, { total: 35 });
  const [item] = (await ok(ctx, "GET", "/item")).data;
  await ok(ctx, "PUT", `/item/${item.id}/decrement`, { quantity: 2 });
  const [hook] = (await ok(ctx, "GET", "/webhook")).data;
  await ok(ctx, "DELETE", `/webhook/${hook.id}`);
  await ok(ctx, "DELETE", "/_sandbox/outcomes");
}

describe("a snapshot of every table of the merchant's state", () => {
  test("holds rows of each; after changes, and after a reset, the restore gives each table back row for row", async () => {
    const ctx = await setup({ config: { webhookAllow: ["127.0.0.1"] } as never });
    await everyKindOfRecord(ctx);
    const taken = await ok(ctx, "POST", "/_sandbox/snapshots", { name: "everything" });
    const before = await stateRows(ctx);
    const empty = Object.keys(before).filter((table) => before[table]!.length === 0 && !(table in LEFT_EMPTY));
    expect(empty).toEqual([]); // a new table: make a record of it in everyKindOfRecord
    expect(taken.tables).toEqual(Object.fromEntries(Object.entries(before).map(([t, rows]) => [t, rows.length])));
    const total = (await ok(ctx, "GET", "/transaction?per_page=1")).total;

    await changeEverything(ctx);
    const changed = await stateRows(ctx);
    const differing = Object.keys(before).filter((t) => JSON.stringify(changed[t]) !== JSON.stringify(before[t]));
    expect(differing.length).toBeGreaterThan(8);
    await ok(ctx, "POST", "/_sandbox/snapshots/everything/restore");
    const back = await stateRows(ctx);
    for (const table of Object.keys(before))
      expect({ table, rows: back[table] }).toEqual({ table, rows: before[table]! });
    expect((await ok(ctx, "GET", "/transaction?per_page=1")).total).toBe(total);

    await ok(ctx, "POST", "/_sandbox/reset");
    expect(Object.values(await stateRows(ctx)).every((rows) => rows.length === 0)).toBe(true);
    await ok(ctx, "POST", "/_sandbox/snapshots/everything/restore");
    const again = await stateRows(ctx);
    for (const table of Object.keys(before))
      expect({ table, rows: again[table] }).toEqual({ table, rows: before[table]! });
    expect((await ok(ctx, "GET", "/transaction?per_page=1")).total).toBe(total);
  }, 120_000);
});
