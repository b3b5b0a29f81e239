/**
 * How a restore writes the merchant's rows back. What a test usually does after the restore of its
 * snapshot (adds rows, changes some) is undone row by row; anything else (a row deleted, or made
 * again elsewhere) rewrites the table. Either way every row, its columns and the order the rows
 * were made in are the snapshot's. The order and the untouched rows are SQLite's rowids, so those
 * checks run on SQLite; the rest runs on both databases.
 */
import { describe, expect, test } from "bun:test";
import { otherMerchant, setup, tokenize, type TestContext } from "../support/app";
import { onPostgres } from "../support/database";
import { DAY, nextMondayNoon } from "../support/settlement";
import { sql } from "../../src/storage/database";

/** Real time stands still (on a Monday noon, so a day's advance settles the day's sales). */
const FROZEN = nextMondayNoon(Date.now());
const frozenSetup = () => setup({ now: () => FROZEN });

async function ok(ctx: TestContext, method: string, path: string, body?: unknown, auth = ctx.apiKey) {
  const res = await ctx.call(method, path, { body, auth });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The merchant's customers and transactions, every column, in the order they were made (SQLite: rowid). */
async function rowsOf(ctx: TestContext, merchantId = ctx.merchantId) {
  const order = onPostgres ? sql.raw("created_at, id") : sql.raw("rowid");
  return {
    customers: await ctx.deps.db.all(sql`SELECT * FROM customers WHERE merchant_id = ${merchantId} ORDER BY ${order}`),
    transactions: await ctx.deps.db.all(
      sql`SELECT * FROM transactions WHERE merchant_id = ${merchantId} ORDER BY ${order}`,
    ),
  };
}

async function rowids(ctx: TestContext, table: string): Promise<Record<string, number>> {
  const rows = await ctx.deps.db.all<{ id: string; r: number }>(
    sql`SELECT id, rowid AS r FROM ${sql.raw(table)} WHERE merchant_id = ${ctx.merchantId}`,
  );
  return Object.fromEntries(rows.map((row) => [row.id, row.r]));
}

/** Customers (one with a card and charges, two without), and their transactions. */
async function someState(ctx: TestContext) {
  const visa = await tokenize(ctx);
  const sale = await ok(ctx, "POST", "/charge", { payment_method_id: visa.id, total: 30 });
  await ok(ctx, "POST", "/_sandbox/clock/advance", { seconds: DAY / 1000 });
  await ok(ctx, "POST", `/transaction/${sale.id}/refund`, { total: 10 });
  await ok(ctx, "POST", "/charge", { payment_method_id: visa.id, total: 12 });
  const plain = await ok(ctx, "POST", "/customer", { firstname: "Plain", email: "plain@example.com" });
  await ok(ctx, "POST", "/customer", { firstname: "Last", email: "last@example.com" });
  return { visa, sale, plain };
}

describe("a restore after a test added rows and changed some", () => {
  test("removes the added rows and sets the changed ones back; every column and the order are the snapshot's", async () => {
    const ctx = await frozenSetup();
    const { visa, sale, plain } = await someState(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const before = await rowsOf(ctx);
    const total = (await ok(ctx, "GET", "/transaction?per_page=1")).total;

    await ok(ctx, "POST", `/transaction/${sale.id}/refund`, { total: 5 });
    await ok(ctx, "POST", "/charge", { payment_method_id: visa.id, total: 99 });
    await ok(ctx, "PUT", `/customer/${plain.id}`, { firstname: "Changed", notes: "after the snapshot" });
    await ok(ctx, "POST", "/customer", { firstname: "Added" });
    expect(await rowsOf(ctx)).not.toEqual(before);

    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowsOf(ctx)).toEqual(before);
    // The list total (kept by triggers as rows come and go) is the snapshot's too.
    expect((await ok(ctx, "GET", "/transaction?per_page=1")).total).toBe(total);
  });

  test.skipIf(onPostgres)("rewrites only those rows: the others keep their place in the table (SQLite)", async () => {
    const ctx = await frozenSetup();
    const { plain } = await someState(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const [customers, transactions] = [await rowids(ctx, "customers"), await rowids(ctx, "transactions")];
    await ok(ctx, "PUT", `/customer/${plain.id}`, { firstname: "Changed" });
    await ok(ctx, "POST", "/customer", { firstname: "Added" });
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowids(ctx, "customers")).toEqual(customers);
    expect(await rowids(ctx, "transactions")).toEqual(transactions);
  });
});

describe("a restore after a row was deleted or made again", () => {
  test("a row deleted since comes back, in its place", async () => {
    const ctx = await frozenSetup();
    await someState(ctx);
    const hook = await ok(ctx, "POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" });
    await ok(ctx, "POST", "/webhook", { target_url: "http://127.0.0.1:9/other", event: "*" });
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const hooks = await ok(ctx, "GET", "/webhook");
    const places = onPostgres ? {} : await rowids(ctx, "webhooks");
    await ok(ctx, "DELETE", `/webhook/${hook.id}`);
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await ok(ctx, "GET", "/webhook")).toEqual(hooks);
    // At the rowid it had (SQLite): its place among every merchant's rows is the snapshot's.
    if (!onPostgres) expect(await rowids(ctx, "webhooks")).toEqual(places);
  });

  test("after a reset, every row comes back (SQLite: each at its rowid) and the list total with them", async () => {
    const ctx = await frozenSetup();
    await someState(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const before = await rowsOf(ctx);
    const places = onPostgres ? {} : await rowids(ctx, "transactions");
    const total = (await ok(ctx, "GET", "/transaction?per_page=1")).total;
    await ok(ctx, "POST", "/_sandbox/reset");
    expect((await rowsOf(ctx)).transactions).toEqual([]);
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowsOf(ctx)).toEqual(before);
    expect((await ok(ctx, "GET", "/transaction?per_page=1")).total).toBe(total);
    if (!onPostgres) expect(await rowids(ctx, "transactions")).toEqual(places);
  });

  test.skipIf(onPostgres)(
    "a row made again since with the same id, after the others, goes back to its place (SQLite)",
    async () => {
      const ctx = await frozenSetup();
      const { plain } = await someState(ctx);
      await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
      const before = await rowsOf(ctx);
      // The same row, deleted and inserted again: now after the customers made after it.
      await ctx.deps.db.transaction(async (tx) => {
        const row = await tx.get<Record<string, unknown>>(sql`SELECT * FROM customers WHERE id = ${plain.id}`);
        await tx.run(sql`DELETE FROM customers WHERE id = ${plain.id}`);
        const columns = Object.keys(row!);
        await tx.run(
          sql`INSERT INTO customers (${sql.raw(columns.map((c) => `"${c}"`).join(", "))})
            VALUES (${sql.join(columns.map((c) => sql`${row![c] as string}`))})`,
        );
      });
      expect((await rowsOf(ctx)).customers).not.toEqual(before.customers);
      await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
      expect(await rowsOf(ctx)).toEqual(before);
    },
  );

  test("another merchant's rows stay as they are, in place", async () => {
    const ctx = await frozenSetup();
    await someState(ctx);
    const other = await otherMerchant(ctx);
    const theirCard = await tokenize(ctx, {}, other.web_payments_token);
    await ok(ctx, "POST", "/charge", { payment_method_id: theirCard.id, total: 3 }, other.api_key);
    const theirs = await rowsOf(ctx, other.id);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    await ok(ctx, "POST", "/customer", { firstname: "Added" });
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowsOf(ctx, other.id)).toEqual(theirs);
  });
});

describe.skipIf(onPostgres)("a restore that cannot put rows back where they were (SQLite)", () => {
  test("a rowid another merchant's row took since: the table is written whole, in order, then by difference again", async () => {
    const ctx = await frozenSetup();
    await someState(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const before = await rowsOf(ctx);
    // The merchant's newest customer deleted, its rowid (the table's last) is the next one made.
    const last = await ctx.deps.db.get<{ id: string; r: number }>(
      sql`SELECT id, rowid AS r FROM customers WHERE merchant_id = ${ctx.merchantId} ORDER BY rowid DESC LIMIT 1`,
    );
    await ctx.deps.db.run(sql`DELETE FROM customers WHERE id = ${last!.id}`);
    const other = await otherMerchant(ctx);
    const theirs = await ok(ctx, "POST", "/customer", { firstname: "Theirs" }, other.api_key);
    expect((await rowids(ctx, "customers"))[last!.id]).toBeUndefined();
    const taken = await ctx.deps.db.get<{ r: number }>(sql`SELECT rowid AS r FROM customers WHERE id = ${theirs.id}`);
    expect(taken!.r).toBe(last!.r);

    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowsOf(ctx)).toEqual(before);
    expect(await ok(ctx, "GET", `/customer/${theirs.id}`, undefined, other.api_key)).toMatchObject({ id: theirs.id });
    // The snapshot now knows the rows' new places: a change since is undone in place.
    const places = await rowids(ctx, "customers");
    await ok(ctx, "PUT", `/customer/${last!.id}`, { firstname: "Changed" });
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowsOf(ctx)).toEqual(before);
    expect(await rowids(ctx, "customers")).toEqual(places);
  });

  test("a unique value two rows swapped since: the table is written whole", async () => {
    const ctx = await frozenSetup();
    await ok(ctx, "POST", "/webhook", { target_url: "http://127.0.0.1:9/hooks", event: "*" });
    await someState(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const deliveries = () =>
      ctx.deps.db.all<Record<string, unknown>>(
        sql`SELECT * FROM webhook_deliveries WHERE merchant_id = ${ctx.merchantId} ORDER BY seq`,
      );
    const before = await deliveries();
    expect(before.length).toBeGreaterThan(1);
    const [a, b] = [before[0]!.id as string, before[1]!.id as string];
    await ctx.deps.db.transaction(async (tx) => {
      await tx.run(sql`UPDATE webhook_deliveries SET id = 'swapping' WHERE id = ${a}`);
      await tx.run(sql`UPDATE webhook_deliveries SET id = ${a} WHERE id = ${b}`);
      await tx.run(sql`UPDATE webhook_deliveries SET id = ${b} WHERE id = 'swapping'`);
    });
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await deliveries()).toEqual(before);
  });

  test("a snapshot taken before rowids were kept is restored whole, in order", async () => {
    const ctx = await frozenSetup();
    const { plain } = await someState(ctx);
    await ok(ctx, "POST", "/_sandbox/snapshots", { name: "base" });
    const before = await rowsOf(ctx);
    for (const table of ["customers", "transactions"])
      await ctx.deps.db.run(sql`UPDATE ${sql.raw(`sandbox_snapshot__${table}`)} SET snapshot_rowid = NULL`);
    await ok(ctx, "DELETE", `/customer/${plain.id}`);
    await ok(ctx, "POST", "/customer", { firstname: "Added" });
    await ok(ctx, "POST", "/_sandbox/snapshots/base/restore");
    expect(await rowsOf(ctx)).toEqual(before);
  });
});
