/**
 * The sandbox reset: every row of a merchant, from every table with a merchant_id column (found
 * in the schema, so tables added by later migrations are covered without a list to keep up to date).
 * The same list is what a snapshot copies and a restore puts back (src/storage/repositories/snapshots.ts).
 */
import { sql, type Executor } from "../database";

/** Known tables in an order that deletes rows before the rows they reference; others go first. */
const DELETE_ORDER = [
  "webhook_attempts",
  "webhook_deliveries",
  "webhooks",
  "emails",
  "sms",
  "deposits",
  "transactions",
  "invoices",
  "payment_methods",
  "customers",
  // Last: deleting transactions moves the list total's counter (its triggers), which on PostgreSQL
  // writes a slot row of its own (migration 035); deleted before them, it would be left below zero.
  "transaction_counts",
];

/** Tables with a merchant_id that are not the merchant's state: its snapshots, which a reset and a restore keep. */
export const SNAPSHOT_TABLES = ["sandbox_snapshots", "sandbox_snapshot_rows"];

/**
 * The prefix of the SQLite shadow tables a snapshot copies rows into (`sandbox_snapshot__customers`,
 * made on first use: src/storage/repositories/snapshots.ts); not the merchant's state either.
 */
export const SHADOW_PREFIX = "sandbox_snapshot__";

/** A snapshot's own table (SNAPSHOT_TABLES or a shadow table). */
export const isSnapshotTable = (name: string) => SNAPSHOT_TABLES.includes(name) || name.startsWith(SHADOW_PREFIX);

/**
 * Every table holding the merchant's state (a merchant_id column, minus SNAPSHOT_TABLES), in an
 * order that deletes rows before the rows they reference: reversed, it inserts them.
 */
export async function merchantStateTables(ex: Executor): Promise<string[]> {
  const rows = await ex.all<{ name: string }>(
    ex.dialect === "sqlite"
      ? sql`SELECT m.name AS name FROM sqlite_master m WHERE m.type = 'table'
              AND m.name NOT IN ('merchants', 'schema_migrations')
              AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'merchant_id')`
      : sql`SELECT table_name AS name FROM information_schema.columns
            WHERE table_schema = current_schema() AND column_name = 'merchant_id'
              AND table_name NOT IN ('merchants', 'schema_migrations')`,
  );
  const rank = (name: string) => {
    const at = DELETE_ORDER.indexOf(name);
    return at < 0 ? -1 : at;
  };
  return rows
    .map((row) => row.name)
    .filter((name) => !isSnapshotTable(name))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Deletes every row of the merchant (not the merchant); run it in a unit of work. Rows deleted, by table. */
export async function deleteMerchantRows(ex: Executor, merchantId: string): Promise<Record<string, number>> {
  // PostgreSQL: the merchant's row, locked, waits for the units of work writing rows of it (each
  // holds a key-share lock on it from its first insert) and holds off new ones until the reset
  // commits; those then find what they used deleted (ForeignKeyViolation: a 422, not a 500).
  if (ex.dialect === "postgres") await ex.get(sql`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`);
  const tables = await merchantStateTables(ex);
  // SQLite checks the foreign keys at COMMIT, so the order does not matter there.
  if (ex.dialect === "sqlite") await ex.run(sql`PRAGMA defer_foreign_keys = ON`);
  const deleted: Record<string, number> = {};
  for (const table of tables) {
    const name = sql.raw(`"${table.replaceAll('"', '""')}"`);
    deleted[table] = (await ex.run(sql`DELETE FROM ${name} WHERE merchant_id = ${merchantId}`)).changes;
  }
  return deleted;
}

/** Every snapshot table that exists (SNAPSHOT_TABLES and the shadow tables made so far). */
async function snapshotTables(ex: Executor): Promise<string[]> {
  const rows = await ex.all<{ name: string }>(
    ex.dialect === "sqlite"
      ? sql`SELECT name FROM sqlite_master WHERE type = 'table'`
      : sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
  );
  return rows.map((row) => row.name).filter(isSnapshotTable);
}

/** Deletes a merchant's row and its snapshots, unless it is the default merchant. */
export async function deleteMerchantRow(ex: Executor, merchantId: string): Promise<void> {
  const merchant = await ex.get(sql`SELECT id FROM merchants WHERE id = ${merchantId} AND is_default = 0`);
  if (!merchant) return;
  for (const table of await snapshotTables(ex))
    await ex.run(sql`DELETE FROM ${sql.raw(`"${table}"`)} WHERE merchant_id = ${merchantId}`);
  await ex.run(sql`DELETE FROM merchants WHERE id = ${merchantId} AND is_default = 0`);
}
