/**
 * Merchant snapshots (POST /_sandbox/snapshots): a copy of every row of the merchant's state, put
 * back exactly by a restore. The tables are the reset's (every table with a merchant_id column,
 * found in the schema: src/storage/repositories/sandbox.ts), so a table a later migration adds is
 * copied without a list to keep up to date. The rows never cross into JavaScript (on SQLite only
 * the rowids of the rows that differ do):
 *
 * - SQLite: each table's rows go to a shadow table of the same columns plus `snapshot` and the
 *   rows' rowids, and a restore writes back only what differs, each row at its rowid
 *   (src/storage/repositories/snapshot-shadow.ts): 10,000 rows are read, not rewritten.
 * - PostgreSQL: each table's rows are one JSON array in sandbox_snapshot_rows, built by json_agg and
 *   taken apart by json_populate_recordset (no DDL at run time on a database other processes share).
 *
 * sandbox_snapshot_rows holds the count of every table's rows on both.
 */
import { sql, type Executor, type Sql, type Transaction } from "../database";
import { deleteMerchantRows, merchantStateTables, SHADOW_PREFIX } from "./sandbox";
import { childrenFirst, copyToShadow, removeAdded, tableShapes, writeBack, type WriteBack } from "./snapshot-shadow";

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
  const tables = await snapshotTables(ex);
  const shapes = ex.dialect === "sqlite" ? await tableShapes(ex, tables) : undefined;
  for (const table of tables) {
    const columns = shapes ? shapes.get(table)!.columns : await tableColumns(ex, table);
    if (shapes) await copyToShadow(ex, table, shapes.get(table)!, merchantId, name);
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
 * the reset does, and the snapshot's inserted parents first; on SQLite only what differs, see
 * snapshot-shadow.ts), the merchant's settings and clock offset set back (its keys stay). Pending
 * webhook deliveries come back unclaimed, so a dispatcher sends them when due. Answers false,
 * changing nothing, when there is no such snapshot.
 */
export async function restoreSnapshot(ex: Transaction, merchantId: string, name: string): Promise<boolean> {
  if (!(await findSnapshot(ex, merchantId, name))) return false;
  if (ex.dialect === "sqlite") {
    // SQLite checks the foreign keys at COMMIT; the passes keep them whole on the way (snapshot-shadow.ts).
    await ex.run(sql`PRAGMA defer_foreign_keys = ON`);
    const shapes = await tableShapes(ex, await snapshotTables(ex));
    const counts = new Map((await snapshotCounts(ex, merchantId, name)).map((c) => [c.table_name, c.row_count]));
    const plans: WriteBack[] = [];
    for (const table of childrenFirst(shapes))
      plans.push(await removeAdded(ex, table, shapes.get(table)!, merchantId, name, Number(counts.get(table) ?? 0)));
    // The derived counters follow the transactions' rows by their triggers.
    for (const plan of plans.reverse()) await writeBack(ex, plan, merchantId, name);
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
