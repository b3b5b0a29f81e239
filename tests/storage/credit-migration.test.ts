/**
 * Migration 045 rebuilds SQLite's transactions table to let `credit` past its CHECK: every row
 * comes through with its rowid (the insertion order), the per-merchant list counter stays right,
 * and every index, trigger and foreign key of the table is there again.
 */
import { describe, expect, test } from "bun:test";
import { Database as BunDatabase } from "bun:sqlite";
import { migrateSqlite } from "../../src/storage/sqlite/migrate";
import { SQLITE_MIGRATIONS } from "../../src/storage/sqlite/migrations/index";

const REBUILD = SQLITE_MIGRATIONS.findIndex((m) => m.name === "045_credit_transactions");
const NOW = "2026-11-02 12:00:00";

/** The table's indexes and triggers as SQLite keeps them (the one partial index 045 widens aside). */
function schemaOf(raw: BunDatabase): Record<string, string | null> {
  const rows = raw
    .query<{ name: string; sql: string | null }, []>(
      "SELECT name, sql FROM sqlite_schema WHERE tbl_name = 'transactions' AND type IN ('index', 'trigger') ORDER BY name",
    )
    .all();
  return Object.fromEntries(rows.map((row) => [row.name, row.sql]));
}

function seed(raw: BunDatabase): void {
  raw.exec(`INSERT INTO merchants (id, name, web_payments_token, web_payments_token_hash, api_key, api_key_hash,
      webhook_secret, created_at, updated_at) VALUES ('m1', 'M', 't', 'th', 'k', 'kh', 's', '${NOW}', '${NOW}')`);
  raw.exec(`INSERT INTO customers (id, merchant_id, match_key, created_at, updated_at)
      VALUES ('c1', 'm1', '||', '${NOW}', '${NOW}')`);
  raw.exec(`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, fingerprint, outcome,
      created_at, updated_at) VALUES ('p1', 'm1', 'c1', 'card', 'Ada', 'f', 'approve', '${NOW}', '${NOW}')`);
  // Ids out of rowid order, so a copy that sorted by id would show.
  for (const [id, parent, type] of [
    ["z-charge", null, "charge"],
    ["a-refund", "z-charge", "refund"],
    ["m-pre", null, "pre_auth"],
  ] as const) {
    raw
      .query(
        `INSERT INTO transactions (id, merchant_id, parent_id, customer_id, payment_method_id, method, type, success,
          total_cents, fee_cents, avs_zip_result, created_at, updated_at)
         VALUES (?, 'm1', ?, 'c1', 'p1', 'card', ?, 1, 1000, 59, 'match', '${NOW}', '${NOW}')`,
      )
      .run(id, parent, type);
  }
}

describe("migration 045 on SQLite", () => {
  test("keeps every row in insertion order, the list counter, the indexes, triggers and foreign keys", async () => {
    const raw = new BunDatabase(":memory:", { strict: true });
    raw.exec("PRAGMA foreign_keys = ON");
    await migrateSqlite(raw, SQLITE_MIGRATIONS.slice(0, REBUILD));
    seed(raw);
    const before = raw.query("SELECT rowid, * FROM transactions ORDER BY rowid").all();
    const schemaBefore = schemaOf(raw);
    // Up to 045 alone: a later migration adding a column (050's schedule_id) is not 045's copy.
    expect(await migrateSqlite(raw, SQLITE_MIGRATIONS.slice(0, REBUILD + 1))).toContain(45);

    expect(raw.query("SELECT rowid, * FROM transactions ORDER BY rowid").all()).toEqual(before);
    expect(raw.query("SELECT top_level FROM transaction_counts WHERE merchant_id = 'm1'").get()).toEqual({
      top_level: 2,
    });
    const schemaAfter = schemaOf(raw);
    expect(Object.keys(schemaAfter)).toEqual(Object.keys(schemaBefore));
    for (const name of Object.keys(schemaBefore).filter((n) => n !== "transactions_unsettled"))
      expect(schemaAfter[name]).toBe(schemaBefore[name]);
    expect(schemaAfter.transactions_unsettled).toContain("'credit'");
    expect(raw.query("PRAGMA foreign_key_check").all()).toEqual([]);
    const table = raw.query<{ sql: string }, []>("SELECT sql FROM sqlite_schema WHERE name = 'transactions'").get()!;
    expect(table.sql).toContain('parent_id TEXT REFERENCES "transactions"(id)');

    // A credit is stored now; the triggers count it; the self-reference still refuses a missing parent.
    raw.exec(`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
        total_cents, created_at, updated_at) VALUES ('cr', 'm1', 'c1', 'p1', 'card', 'credit', 1, 500, '${NOW}', '${NOW}')`);
    expect(raw.query("SELECT top_level FROM transaction_counts WHERE merchant_id = 'm1'").get()).toEqual({
      top_level: 3,
    });
    expect(() =>
      raw.exec(`INSERT INTO transactions (id, merchant_id, parent_id, customer_id, payment_method_id, method, type,
          success, total_cents, created_at, updated_at)
        VALUES ('orphan', 'm1', 'nope', 'c1', 'p1', 'card', 'refund', 1, 5, '${NOW}', '${NOW}')`),
    ).toThrow("FOREIGN KEY");
    expect(() =>
      raw.exec(`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
          total_cents, created_at, updated_at) VALUES ('x', 'm1', 'c1', 'p1', 'card', 'gift', 1, 5, '${NOW}', '${NOW}')`),
    ).toThrow("CHECK");
    raw.close();
  });
});
