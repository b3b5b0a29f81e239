/**
 * Migration 042 (surcharging) on SQLite, whichever way a database meets it: a new database runs it
 * before 045 rebuilds the transactions table (whose copy keeps surcharge_cents), and a database
 * that already had 045 runs it after. Either way every column is there and the cards tokenized
 * before it are credit cards.
 */
import { describe, expect, test } from "bun:test";
import { Database as BunDatabase } from "bun:sqlite";
import { migrateSqlite } from "../../src/storage/sqlite/migrate";
import { SQLITE_MIGRATIONS } from "../../src/storage/sqlite/migrations/index";
import type { Migration } from "../../src/storage/migrate";

const NOW = "2026-11-02 12:00:00";

function columns(raw: BunDatabase, table: string): string[] {
  return raw
    .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
    .all()
    .map((c) => c.name);
}

function expectSurchargeColumns(raw: BunDatabase) {
  expect(columns(raw, "transactions")).toContain("surcharge_cents");
  expect(columns(raw, "payment_methods")).toContain("bin_type");
  expect(columns(raw, "merchants")).toEqual(expect.arrayContaining(["is_surcharge_enabled", "surcharge_rate_bps"]));
}

/** 045 as it first shipped, before its copy of transactions named 042's surcharge_cents. */
function asShipped(migration: Migration): Migration {
  if (migration.version !== 45) return migration;
  const sql = migration.sql
    .replace(/,\s*surcharge_cents INTEGER NOT NULL DEFAULT 0/, "")
    .replaceAll(", surcharge_cents", "");
  expect(sql).not.toMatch(/^(?!--).*surcharge_cents/m);
  expect(sql.length).toBeLessThan(migration.sql.length);
  return { ...migration, sql };
}

describe("migration 042 on SQLite", () => {
  test("a new database has the surcharge columns after 045's rebuild of transactions", async () => {
    const raw = new BunDatabase(":memory:", { strict: true });
    const applied = await migrateSqlite(raw);
    expect(applied.indexOf(42)).toBeLessThan(applied.indexOf(45));
    expectSurchargeColumns(raw);
  });

  test("a database that had 045 already gets them too, and its cards are credit cards", async () => {
    const raw = new BunDatabase(":memory:", { strict: true });
    raw.exec("PRAGMA foreign_keys = ON");
    await migrateSqlite(raw, SQLITE_MIGRATIONS.filter((m) => m.version !== 42).map(asShipped));
    expect(columns(raw, "transactions")).not.toContain("surcharge_cents");
    raw.exec(`INSERT INTO merchants (id, name, web_payments_token, web_payments_token_hash, api_key, api_key_hash,
        webhook_secret, created_at, updated_at) VALUES ('m1', 'M', 't', 'th', 'k', 'kh', 's', '${NOW}', '${NOW}')`);
    raw.exec(`INSERT INTO customers (id, merchant_id, match_key, created_at, updated_at)
        VALUES ('c1', 'm1', '||', '${NOW}', '${NOW}')`);
    for (const [id, method] of [
      ["card", "card"],
      ["bank", "bank"],
    ])
      raw.exec(`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, fingerprint, outcome,
          created_at, updated_at) VALUES ('${id}', 'm1', 'c1', '${method}', 'Ada', 'f', 'approve', '${NOW}', '${NOW}')`);
    raw.exec(`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
        total_cents, created_at, updated_at) VALUES ('t1', 'm1', 'c1', 'card', 'card', 'charge', 1, 1000, '${NOW}', '${NOW}')`);

    expect(await migrateSqlite(raw)).toEqual([42]);
    expectSurchargeColumns(raw);
    expect(raw.query("SELECT id, bin_type FROM payment_methods ORDER BY id").all()).toEqual([
      { id: "bank", bin_type: null },
      { id: "card", bin_type: "CREDIT" },
    ]);
    expect(raw.query("SELECT surcharge_cents FROM transactions").get()).toEqual({ surcharge_cents: 0 });
    expect(raw.query("SELECT is_surcharge_enabled, surcharge_rate_bps FROM merchants").get()).toEqual({
      is_surcharge_enabled: 0,
      surcharge_rate_bps: 0,
    });
  });
});
