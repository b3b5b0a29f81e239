/**
 * Merchant snapshots (POST /_sandbox/snapshots): a copy of every row of the merchant's state, put
 * back exactly by a restore. The tables are the reset's (every table with a merchant_id column,
 * found in the schema: src/storage/repositories/sandbox.ts), so a table a later migration adds is
 * copied without a list to keep up to date. The rows never cross into JavaScript:
 *
 * - SQLite: each table's rows go to a shadow table of the same columns plus `snapshot`
 *   (`sandbox_snapshot__customers`, made on first use from the table itself and given the columns a
 *   later migration adds), and come back with one `INSERT … SELECT` each: a restore of 10,000 rows
 *   is a plain copy (as JSON taken apart by json_each, 6,000 transactions alone took 500 ms).
 * - PostgreSQL: each table's rows are one JSON array in sandbox_snapshot_rows, built by json_agg and
 *   taken apart by json_populate_recordset (no DDL at run time on a database other processes share).
 *
 * sandbox_snapshot_rows holds the count of every table's rows on both.
 */
import { sql, type Executor, type Sql } from "../database";
import { deleteMerchantRows, merchantStateTables, SHADOW_PREFIX } from "./sandbox";

/** Kept by the triggers on transactions (the list total): the re-inserted transactions rebuild them. */
export const DERIVED_TABLES = ["transaction_counts"];

/** Merchant columns that are who the merchant is, not its state: a restore keeps them as they are. */
export const MERCHANT_IDENTITY_COLUMNS = [
  "id",
  "web_payments_token",
  "web_payments_token_hash",
  "api_key",
  "api_key_hash",
  "webhook_secret",
  "is_default",
  "created_at",
  "seq",
];

export interface SnapshotRow {
  name: string;
  records: number;
  created_at: string;
}

export interface SnapshotTableCount {
  table_name: string;
  row_count: number;
}

const quote = (name: string): Sql => sql.raw(`"${name.replaceAll('"', '""')}"`);

/** The tables a snapshot copies, in delete order (reverse it to insert). */
export async function snapshotTables(ex: Executor): Promise<string[]> {
  return (await merchantStateTables(ex)).filter((table) => !DERIVED_TABLES.includes(table));
}

/** A table's columns, in their order. */
export async function tableColumns(ex: Executor, table: string): Promise<string[]> {
  const rows = await ex.all<{ name: string }>(
    ex.dialect === "sqlite"
      ? sql`SELECT name FROM pragma_table_info(${table}) ORDER BY cid`
      : sql`SELECT column_name AS name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`,
  );
  return rows.map((row) => row.name);
}

/** SQLite: a row of `alias` as a JSON object of its columns. */
function jsonObject(columns: string[], alias: string): string {
  return `json_object(${columns.map((c) => `'${c.replaceAll("'", "''")}', ${alias}."${c.replaceAll('"', '""')}"`).join(", ")})`;
}

/**
 * Takes the merchant's rows in a unit of work, replacing a snapshot of the same name. On
 * PostgreSQL the merchant's row is locked first (as the reset does): the copy waits for the units
 * writing rows of it, so every table is copied at one moment.
 */
export async function captureSnapshot(
  ex: Executor,
  merchantId: string,
  name: string,
  createdAt: string,
): Promise<SnapshotRow> {
  if (ex.dialect === "postgres") await ex.get(sql`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`);
  await deleteSnapshot(ex, merchantId, name);
  let records = 0;
  for (const table of await snapshotTables(ex)) {
    const columns = await tableColumns(ex, table);
    if (ex.dialect === "sqlite") await copyToShadow(ex, table, columns, merchantId, name);
    const rows =
      ex.dialect === "sqlite"
        ? sql.raw(`''`)
        : sql.raw(`COALESCE(json_agg(t${columns.includes("seq") ? " ORDER BY t.seq" : ""}), '[]'::json)::text`);
    await ex.run(
      sql`INSERT INTO sandbox_snapshot_rows (merchant_id, snapshot, table_name, row_count, rows)
          SELECT ${merchantId}, ${name}, ${table}, COUNT(*), ${rows} FROM ${quote(table)} t WHERE t.merchant_id = ${merchantId}`,
    );
    const copied = await ex.get<{ row_count: number }>(
      sql`SELECT row_count FROM sandbox_snapshot_rows
          WHERE merchant_id = ${merchantId} AND snapshot = ${name} AND table_name = ${table}`,
    );
    records += Number(copied?.row_count ?? 0);
  }
  const merchant =
    ex.dialect === "sqlite"
      ? sql.raw(jsonObject(await tableColumns(ex, "merchants"), "m"))
      : sql.raw("row_to_json(m)::text");
  await ex.run(
    sql`INSERT INTO sandbox_snapshots (merchant_id, name, merchant, records, created_at)
        SELECT ${merchantId}, ${name}, ${merchant}, ${records}, ${createdAt} FROM merchants m WHERE m.id = ${merchantId}`,
  );
  return { name, records, created_at: createdAt };
}

/**
 * Puts the merchant's state back as the snapshot holds it, in a unit of work: the snapshot's rows
 * with their ids, timestamps and order numbers (on PostgreSQL every row of the merchant deleted, as
 * the reset does, and the snapshot's inserted parents first; on SQLite table by table, see
 * restoreFromShadow), the merchant's settings and clock offset set back (its keys stay). Pending
 * webhook deliveries come back unclaimed, so a dispatcher sends them when due. Answers false,
 * changing nothing, when there is no such snapshot.
 */
export async function restoreSnapshot(ex: Executor, merchantId: string, name: string): Promise<boolean> {
  if (!(await findSnapshot(ex, merchantId, name))) return false;
  if (ex.dialect === "sqlite") {
    // SQLite checks the foreign keys at COMMIT, so the tables may come back in any order.
    await ex.run(sql`PRAGMA defer_foreign_keys = ON`);
    // The derived counters follow the transactions' rows by their triggers.
    for (const table of await snapshotTables(ex)) await restoreFromShadow(ex, table, merchantId, name);
  } else {
    await deleteMerchantRows(ex, merchantId);
    for (const table of (await snapshotTables(ex)).reverse()) {
      const stored = sql`SELECT rows FROM sandbox_snapshot_rows
                         WHERE merchant_id = ${merchantId} AND snapshot = ${name} AND table_name = ${table}`;
      // The columns the snapshot has (a column added since takes its default): its first row's keys.
      const keys = await ex.all<{ key: string }>(sql`SELECT json_object_keys((${stored})::json -> 0) AS key`);
      if (keys.length === 0) continue; // no rows
      const saved = new Set(keys.map((row) => row.key));
      const names = (await tableColumns(ex, table))
        .filter((c) => saved.has(c))
        .map((c) => `"${c.replaceAll('"', '""')}"`)
        .join(", ");
      await ex.run(
        sql`INSERT INTO ${quote(table)} (${sql.raw(names)})
            SELECT ${sql.raw(names)} FROM json_populate_recordset(NULL::${quote(table)}, (${stored})::json)`,
      );
    }
  }
  const state = (await tableColumns(ex, "merchants")).filter((c) => !MERCHANT_IDENTITY_COLUMNS.includes(c));
  const targets = sql.raw(state.map((c) => `"${c}"`).join(", "));
  const where = sql`s.merchant_id = ${merchantId} AND s.name = ${name}`;
  await ex.run(
    ex.dialect === "sqlite"
      ? sql`UPDATE merchants SET (${targets}) = (SELECT ${sql.raw(state.map((c) => `s.merchant ->> '$."${c}"'`).join(", "))}
              FROM sandbox_snapshots s WHERE ${where}) WHERE id = ${merchantId}`
      : sql`UPDATE merchants SET (${targets}) = (SELECT ${sql.raw(state.map((c) => `r."${c}"`).join(", "))}
              FROM sandbox_snapshots s, json_populate_record(NULL::merchants, s.merchant::json) r WHERE ${where})
            WHERE id = ${merchantId}`,
  );
  // A claim is a dispatcher's promise to send now: none of the restored deliveries is out.
  await ex.run(
    sql`UPDATE webhook_deliveries SET claimed_by = NULL WHERE merchant_id = ${merchantId} AND claimed_by IS NOT NULL`,
  );
  return true;
}

/** A column list, each name quoted, optionally qualified by a table alias. */
const columnList = (columns: string[], alias?: string): Sql =>
  sql.raw(columns.map((c) => `${alias ? `${alias}.` : ""}"${c.replaceAll('"', '""')}"`).join(", "));

/**
 * SQLite: the merchant's rows of `table` as the shadow table holds them for snapshot `name`. When
 * every row of the snapshot is still there, in the snapshot's order (a test added rows and changed
 * some: the usual case), only the difference is written: the rows added since are deleted and the
 * rows changed since set back in place, so they keep their order. Otherwise (a row deleted or made
 * again since, a column added since, no primary key) every row of the merchant is deleted and the
 * snapshot's inserted in order. Either way the table ends as the snapshot holds it. An unchanged
 * table is read, not rewritten: a transaction's row is written with eight indexes, a foreign-key
 * check per parent and the counters' trigger, twice (deleted, then inserted) for each row.
 */
async function restoreFromShadow(ex: Executor, table: string, merchantId: string, name: string): Promise<void> {
  const shadow = `${SHADOW_PREFIX}${table}`;
  const [target, copy] = [quote(table), quote(shadow)];
  if (!(await tableExists(ex, shadow))) {
    // The table came after the snapshot: it had no rows then.
    await ex.run(sql`DELETE FROM ${target} WHERE merchant_id = ${merchantId}`);
    return;
  }
  const info = await ex.all<{ name: string; pk: number }>(
    sql`SELECT name, pk FROM pragma_table_info(${table}) ORDER BY cid`,
  );
  const columns = info.map((column) => column.name);
  const keys = info.filter((column) => column.pk > 0).map((column) => column.name);
  const others = columns.filter((column) => !keys.includes(column));
  const copied = new Set(await tableColumns(ex, shadow));
  const ofSnapshot = sql`merchant_id = ${merchantId} AND snapshot = ${name}`;
  const found = columns.every((column) => copied.has(column))
    ? await matchShadow(ex, table, keys, merchantId, name)
    : undefined;
  if (!found || found.misplaced > 0) {
    const names = columnList(columns.filter((column) => copied.has(column)));
    await ex.run(sql`DELETE FROM ${target} WHERE merchant_id = ${merchantId}`);
    await ex.run(sql`INSERT INTO ${target} (${names}) SELECT ${names} FROM ${copy} WHERE ${ofSnapshot} ORDER BY rowid`);
    return;
  }
  if (found.present > found.matched) {
    await ex.run(
      sql`DELETE FROM ${target} WHERE merchant_id = ${merchantId}
            AND (${columnList(keys)}) NOT IN (SELECT ${columnList(keys)} FROM ${copy} WHERE ${ofSnapshot})`,
    );
  }
  if (others.length === 0) return;
  // Row values compare NULLs as equal with IS NOT: only the rows that differ are written.
  await ex.run(
    sql`UPDATE ${target} AS t SET (${columnList(others)}) = (${columnList(others, "s")}) FROM ${copy} AS s
        WHERE s.merchant_id = ${merchantId} AND s.snapshot = ${name} AND t.merchant_id = ${merchantId}
          AND ${keysMatch(keys)} AND (${columnList(others, "t")}) IS NOT (${columnList(others, "s")})`,
  );
}

/** `t.k = s.k` for each key column. */
const keysMatch = (keys: string[]): Sql =>
  sql.raw(keys.map((key) => `t."${key.replaceAll('"', '""')}" = s."${key.replaceAll('"', '""')}"`).join(" AND "));

/**
 * SQLite: the snapshot's rows of `table` matched with the table's by primary key: how many are
 * missing or out of the snapshot's order (by rowid), how many the table still has, and how many
 * rows of the merchant it has in all. Undefined when rows cannot be matched (no primary key, or no
 * rowid to order them by). Only the keys and rowids are read (the columns would double its time).
 */
async function matchShadow(
  ex: Executor,
  table: string,
  keys: string[],
  merchantId: string,
  name: string,
): Promise<{ misplaced: number; matched: number; present: number } | undefined> {
  if (keys.length === 0) return undefined;
  const withoutRowid = await ex.get(
    sql`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ${table} AND sql LIKE '%WITHOUT ROWID%'`,
  );
  if (withoutRowid) return undefined;
  const row = await ex.get<{ misplaced: number | null; matched: number; present: number }>(
    sql`SELECT SUM(at IS NULL OR at < previous) AS misplaced, COUNT(at) AS matched,
          (SELECT COUNT(*) FROM ${quote(table)} WHERE merchant_id = ${merchantId}) AS present
        FROM (
          SELECT t.rowid AS at, LAG(t.rowid) OVER (ORDER BY s.rowid) AS previous
          FROM ${quote(`${SHADOW_PREFIX}${table}`)} s
            LEFT JOIN ${quote(table)} t ON t.merchant_id = ${merchantId} AND ${keysMatch(keys)}
          WHERE s.merchant_id = ${merchantId} AND s.snapshot = ${name}
        )`,
  );
  return {
    misplaced: Number(row?.misplaced ?? 0),
    matched: Number(row?.matched ?? 0),
    present: Number(row?.present ?? 0),
  };
}

export function findSnapshot(ex: Executor, merchantId: string, name: string): Promise<SnapshotRow | undefined> {
  return ex.get<SnapshotRow>(
    sql`SELECT name, records, created_at FROM sandbox_snapshots WHERE merchant_id = ${merchantId} AND name = ${name}`,
  );
}

/** The merchant's snapshots, oldest first. */
export function listSnapshots(ex: Executor, merchantId: string): Promise<SnapshotRow[]> {
  return ex.all<SnapshotRow>(
    sql`SELECT name, records, created_at FROM sandbox_snapshots WHERE merchant_id = ${merchantId}
        ORDER BY created_at, name`,
  );
}

/** How many rows of each table a snapshot holds. */
export function snapshotCounts(ex: Executor, merchantId: string, name: string): Promise<SnapshotTableCount[]> {
  return ex.all<SnapshotTableCount>(
    sql`SELECT table_name, row_count FROM sandbox_snapshot_rows
        WHERE merchant_id = ${merchantId} AND snapshot = ${name} ORDER BY table_name`,
  );
}

async function tableExists(ex: Executor, table: string): Promise<boolean> {
  return (await ex.get(sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${table}`)) !== undefined;
}

/**
 * SQLite: the merchant's rows of `table` into its shadow table, in insertion order. The shadow
 * table is made from the table on first use (its columns and their types, no constraints) and
 * given the columns a migration added since.
 */
async function copyToShadow(ex: Executor, table: string, columns: string[], merchantId: string, name: string) {
  const shadow = `${SHADOW_PREFIX}${table}`;
  if (!(await tableExists(ex, shadow))) {
    await ex.run(sql`CREATE TABLE ${quote(shadow)} AS SELECT '' AS snapshot, * FROM ${quote(table)} WHERE 0`);
    await ex.run(sql`CREATE INDEX ${quote(`${shadow}_by_snapshot`)} ON ${quote(shadow)} (merchant_id, snapshot)`);
  }
  const present = new Set(await tableColumns(ex, shadow));
  for (const column of columns.filter((c) => !present.has(c))) {
    const type = await ex.get<{ type: string }>(
      sql`SELECT type FROM pragma_table_info(${table}) WHERE name = ${column}`,
    );
    const declared = (type?.type ?? "").replace(/[^A-Za-z ]/g, "");
    await ex.run(sql`ALTER TABLE ${quote(shadow)} ADD COLUMN ${quote(column)} ${sql.raw(declared)}`);
  }
  const names = columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(", ");
  await ex.run(
    sql`INSERT INTO ${quote(shadow)} (snapshot, ${sql.raw(names)})
        SELECT ${name}, ${sql.raw(names)} FROM ${quote(table)} WHERE merchant_id = ${merchantId} ORDER BY rowid`,
  );
}

/** Deletes a snapshot; answers whether there was one. */
export async function deleteSnapshot(ex: Executor, merchantId: string, name: string): Promise<boolean> {
  if (ex.dialect === "sqlite") {
    const shadows = await ex.all<{ name: string }>(
      sql`SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ${SHADOW_PREFIX.length}) = ${SHADOW_PREFIX}`,
    );
    for (const { name: shadow } of shadows)
      await ex.run(sql`DELETE FROM ${quote(shadow)} WHERE merchant_id = ${merchantId} AND snapshot = ${name}`);
  }
  await ex.run(sql`DELETE FROM sandbox_snapshot_rows WHERE merchant_id = ${merchantId} AND snapshot = ${name}`);
  const { changes } = await ex.run(
    sql`DELETE FROM sandbox_snapshots WHERE merchant_id = ${merchantId} AND name = ${name}`,
  );
  return changes > 0;
}
