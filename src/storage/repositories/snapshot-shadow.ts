/**
 * SQLite snapshots: each table's rows in a shadow table (`sandbox_snapshot__customers`: the
 * table's columns without constraints, plus `snapshot` and `snapshot_rowid`, the rowid the row
 * had), made on first use and given the columns a later migration adds.
 *
 * A restore writes back only what differs, each row at the rowid it had: the rows keep their
 * order, an untouched row is read and never written, and a changed row gets only the columns
 * that differ (a transaction's row is written with eight indexes, a foreign-key check per parent
 * and the counters' trigger; setting all its columns costs three times setting one). It runs in
 * two passes so that SQLite's deferred foreign keys never count a violation on the way: first the
 * rows added since are deleted, children's tables before their parents'; then the changed rows
 * are set back and the missing ones inserted, parents' tables first. (While a violation is
 * counted, every row inserted into a parent table makes SQLite search each child table for rows
 * it would mend: 2,000 customers back after a reset took 2 s.)
 */
import { sql, UniqueViolation, type Executor, type Sql, type Transaction } from "../database";
import { SHADOW_PREFIX } from "./sandbox";

/** The shadow column holding a row's rowid as the snapshot found it. */
const ROWID = "snapshot_rowid";

/** Columns past this many share the last bit of a changed row's mask (a 53-bit number). */
const MASK_BITS = 52;

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quote = (name: string): Sql => sql.raw(quoteName(name));

/** A column list, each name quoted, optionally qualified by a table alias. */
const names = (columns: string[], alias?: string): string =>
  columns.map((c) => `${alias ? `${alias}.` : ""}${quoteName(c)}`).join(", ");
const columnList = (columns: string[], alias?: string): Sql => sql.raw(names(columns, alias));

/** `t.k = s.k AND …` for each key column. */
const keysMatch = (keys: string[]): Sql =>
  sql.raw(keys.map((key) => `t.${quoteName(key)} = s.${quoteName(key)}`).join(" AND "));

/** What a snapshot needs to know of a table and its shadow. */
export interface TableShape {
  columns: string[];
  /** The primary key's columns (none: the table is always written whole). */
  keys: string[];
  /** The INTEGER PRIMARY KEY that is the rowid, if any (then the rowid is not listed apart). */
  rowidAlias: boolean;
  /** The shadow table's columns; empty when there is none. */
  shadow: Set<string>;
  /** The tables its foreign keys refer to. */
  parents: Set<string>;
}

/** The shape of each table and its shadow, read in three queries for all of them. */
export async function tableShapes(ex: Executor, tables: string[]): Promise<Map<string, TableShape>> {
  const listed = JSON.stringify([...tables, ...tables.map((table) => `${SHADOW_PREFIX}${table}`)]);
  const found = sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(${listed}))`;
  const columns = await ex.all<{ tbl: string; name: string; type: string; pk: number }>(
    sql`SELECT m.name AS tbl, p.name, p.type, p.pk FROM (${found}) m, pragma_table_info(m.name) p ORDER BY m.name, p.cid`,
  );
  const foreign = await ex.all<{ tbl: string; parent: string }>(
    sql`SELECT DISTINCT m.name AS tbl, f."table" AS parent FROM (${found}) m, pragma_foreign_key_list(m.name) f`,
  );
  const shapes = new Map<string, TableShape>();
  for (const table of tables) {
    const own = columns.filter((column) => column.tbl === table);
    if (own.length === 0) continue;
    const keys = own.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
    shapes.set(table, {
      columns: own.map((column) => column.name),
      keys: keys.map((column) => column.name),
      rowidAlias: keys.length === 1 && keys[0]!.type.toUpperCase() === "INTEGER",
      shadow: new Set(columns.filter((column) => column.tbl === `${SHADOW_PREFIX}${table}`).map((c) => c.name)),
      parents: new Set(foreign.filter((row) => row.tbl === table && row.parent !== table).map((row) => row.parent)),
    });
  }
  return shapes;
}

/** The tables, each before every table it refers to (children first: the order to delete in). */
export function childrenFirst(shapes: Map<string, TableShape>): string[] {
  const placed: string[] = [];
  const visiting = new Set<string>();
  // Depth first from each table towards the tables that refer to it; a cycle is cut where found.
  const place = (table: string) => {
    if (placed.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const [child, shape] of shapes) if (shape.parents.has(table)) place(child);
    placed.push(table);
  };
  for (const table of [...shapes.keys()].sort()) place(table);
  return placed;
}

/**
 * The merchant's rows of `table` into its shadow table under `name`, with their rowids, in
 * rowid order. The shadow table is made on first use (the table's columns and their types, no
 * constraints) and given the columns a migration added since.
 */
export async function copyToShadow(
  ex: Executor,
  table: string,
  shape: TableShape,
  merchantId: string,
  name: string,
): Promise<void> {
  const shadow = `${SHADOW_PREFIX}${table}`;
  if (shape.shadow.size === 0) {
    await ex.run(
      sql`CREATE TABLE ${quote(shadow)} AS
          SELECT '' AS snapshot, CAST(0 AS INTEGER) AS ${quote(ROWID)}, * FROM ${quote(table)} WHERE 0`,
    );
    shape.shadow = new Set(["snapshot", ROWID, ...shape.columns]);
  }
  // A shadow table made before rowids were kept (its older snapshots have none: restored whole).
  if (!shape.shadow.has(ROWID)) await ex.run(sql`ALTER TABLE ${quote(shadow)} ADD COLUMN ${quote(ROWID)} INTEGER`);
  await ex.run(
    sql`CREATE INDEX IF NOT EXISTS ${quote(`${shadow}_by_rowid`)}
        ON ${quote(shadow)} (merchant_id, snapshot, ${quote(ROWID)})`,
  );
  for (const column of shape.columns.filter((c) => !shape.shadow.has(c))) {
    const type = await ex.get<{ type: string }>(
      sql`SELECT type FROM pragma_table_info(${table}) WHERE name = ${column}`,
    );
    const declared = (type?.type ?? "").replace(/[^A-Za-z ]/g, "");
    await ex.run(sql`ALTER TABLE ${quote(shadow)} ADD COLUMN ${quote(column)} ${sql.raw(declared)}`);
  }
  const listed = columnList(shape.columns);
  await ex.run(
    sql`INSERT INTO ${quote(shadow)} (snapshot, ${quote(ROWID)}, ${listed})
        SELECT ${name}, rowid, ${listed} FROM ${quote(table)} WHERE merchant_id = ${merchantId} ORDER BY rowid`,
  );
}

/** What the second pass of a restore writes into a table. */
export interface WriteBack {
  table: string;
  shape: TableShape;
  /** "difference": the changed and the missing rows; "whole": every row of the snapshot. */
  how: "difference" | "whole" | "nothing";
  /** The rowids of the changed rows, by the mask of the columns that differ (bit i: column i of `others`). */
  changed: Map<number, number[]>;
  /** The rowids of the rows missing. */
  missing: number[];
  /** Every row of the snapshot is missing (after a reset). */
  all: boolean;
  /** The table's columns but its keys. */
  others: string[];
}

/**
 * The first pass of a restore for `table`: finds, in one pass over the snapshot's rows, those
 * missing and those changed (and which columns), and deletes the merchant's rows the snapshot
 * does not have where they are (rows added since, or made again). When rows cannot be matched
 * (no primary key, a snapshot taken before rowids were kept, a column added since) every row of
 * the merchant is deleted, to be written back whole.
 */
export async function removeAdded(
  ex: Executor,
  table: string,
  shape: TableShape,
  merchantId: string,
  name: string,
  rowCount: number,
): Promise<WriteBack> {
  const [target, copy] = [quote(table), quote(`${SHADOW_PREFIX}${table}`)];
  const others = shape.columns.filter((column) => !shape.keys.includes(column));
  const plan: WriteBack = { table, shape, how: "nothing", changed: new Map(), missing: [], all: false, others };
  const matchable =
    shape.shadow.size > 0 &&
    shape.keys.length > 0 &&
    shape.shadow.has(ROWID) &&
    shape.columns.every((c) => shape.shadow.has(c));
  const found = matchable
    ? await ex.all<{ r: number | null; m: number }>(
        sql`SELECT s.${quote(ROWID)} AS r, CASE WHEN t.rowid IS NULL THEN -1 ELSE ${changedMask(others)} END AS m
            FROM ${copy} s LEFT JOIN ${target} t
              ON t.rowid = s.${quote(ROWID)} AND t.merchant_id = s.merchant_id AND ${keysMatch(shape.keys)}
            WHERE s.merchant_id = ${merchantId} AND s.snapshot = ${name}
              AND (t.rowid IS NULL ${others.length > 0 ? sql`OR (${columnList(others, "t")}) IS NOT (${columnList(others, "s")})` : sql.raw("")})`,
      )
    : [];
  if (!matchable || found.some((row) => row.r === null)) {
    // The table came after every snapshot (no shadow): it had no rows then.
    await ex.run(sql`DELETE FROM ${target} WHERE merchant_id = ${merchantId}`);
    return { ...plan, how: shape.shadow.size > 0 ? "whole" : "nothing" };
  }
  for (const row of found) {
    if (row.m === -1) plan.missing.push(row.r!);
    else {
      const rowids = plan.changed.get(row.m);
      if (rowids) rowids.push(row.r!);
      else plan.changed.set(row.m, [row.r!]);
    }
  }
  // The rows added since have rowids past the snapshot's last: those alone are a range.
  const last = await ex.get<{ r: number | null }>(
    sql`SELECT MAX(${quote(ROWID)}) AS r FROM ${copy} WHERE merchant_id = ${merchantId} AND snapshot = ${name}`,
  );
  const lastRowid = Number(last?.r ?? 0);
  const counted = await ex.get<{ present: number; after: number | null }>(
    sql`SELECT COUNT(*) AS present, SUM(rowid > ${lastRowid}) AS after FROM ${target} WHERE merchant_id = ${merchantId}`,
  );
  const [present, after] = [Number(counted?.present ?? 0), Number(counted?.after ?? 0)];
  const matched = rowCount - plan.missing.length;
  if (present - after > matched) {
    // Some row not where the snapshot had it (made again since): each row checked.
    await ex.run(
      sql`DELETE FROM ${target} AS t WHERE merchant_id = ${merchantId} AND NOT EXISTS (
            SELECT 1 FROM ${copy} s WHERE s.merchant_id = ${merchantId} AND s.snapshot = ${name}
              AND s.${quote(ROWID)} = t.rowid AND ${keysMatch(shape.keys)})`,
    );
  } else if (after > 0) {
    await ex.run(sql`DELETE FROM ${target} WHERE merchant_id = ${merchantId} AND rowid > ${lastRowid}`);
  }
  return { ...plan, how: "difference", all: plan.missing.length === rowCount };
}

/** Bit i set when column i of `others` differs between `t` and `s` (the columns past MASK_BITS share one). */
function changedMask(others: string[]): Sql {
  if (others.length === 0) return sql.raw("0");
  const head = others.slice(0, MASK_BITS);
  const rest = others.slice(MASK_BITS);
  const bits = head.map((column, i) => `((t.${quoteName(column)} IS NOT s.${quoteName(column)}) << ${i})`);
  if (rest.length > 0) bits.push(`(((${names(rest, "t")}) IS NOT (${names(rest, "s")})) << ${MASK_BITS})`);
  return sql.raw(bits.join(" | "));
}

/**
 * The second pass of a restore for one table: the changed rows get the columns that differ, and
 * the missing rows are inserted at their rowids. When that cannot be done (a rowid another
 * merchant's row took since, or a unique value two rows swapped: a unique violation, undone) the
 * table is written whole.
 */
export async function writeBack(tx: Transaction, plan: WriteBack, merchantId: string, name: string): Promise<void> {
  if (plan.how === "nothing") return;
  if (plan.how === "difference") {
    try {
      await tx.transaction((unit) => writeDifference(unit, plan, merchantId, name));
      return;
    } catch (error) {
      if (!(error instanceof UniqueViolation)) throw error;
    }
  }
  await writeWhole(tx, plan.table, plan.shape, merchantId, name);
}

async function writeDifference(tx: Transaction, plan: WriteBack, merchantId: string, name: string) {
  const { shape, others } = plan;
  const [target, copy] = [quote(plan.table), quote(`${SHADOW_PREFIX}${plan.table}`)];
  for (const [mask, rowids] of plan.changed) {
    const set = others.filter((_, i) => Math.floor(mask / 2 ** Math.min(i, MASK_BITS)) % 2 === 1);
    await tx.run(
      sql`UPDATE ${target} AS t SET (${columnList(set)}) = (${columnList(set, "s")}) FROM ${copy} s
          WHERE t.rowid IN (SELECT value FROM json_each(${JSON.stringify(rowids)}))
            AND s.merchant_id = ${merchantId} AND s.snapshot = ${name} AND s.${quote(ROWID)} = t.rowid`,
    );
  }
  if (plan.missing.length === 0) return;
  const listed = columnList(shape.columns);
  const [into, from] = shape.rowidAlias ? [sql.raw(""), sql.raw("")] : [sql`rowid, `, sql`${quote(ROWID)}, `];
  const which = plan.all
    ? sql.raw("")
    : sql`AND ${quote(ROWID)} IN (SELECT value FROM json_each(${JSON.stringify(plan.missing)}))`;
  await tx.run(
    sql`INSERT INTO ${target} (${into}${listed})
        SELECT ${from}${listed} FROM ${copy}
        WHERE merchant_id = ${merchantId} AND snapshot = ${name} ${which}
        ORDER BY ${quote(ROWID)}`,
  );
}

/**
 * Every row of the merchant deleted and the snapshot's inserted in its order; the snapshot then
 * records the rows' new rowids, so the next restore of it writes only what differs.
 */
async function writeWhole(tx: Transaction, table: string, shape: TableShape, merchantId: string, name: string) {
  const [target, copy] = [quote(table), quote(`${SHADOW_PREFIX}${table}`)];
  const listed = columnList(shape.columns.filter((column) => shape.shadow.has(column)));
  const order = shape.shadow.has(ROWID) ? sql`${quote(ROWID)}, rowid` : sql.raw("rowid");
  await tx.run(sql`DELETE FROM ${target} WHERE merchant_id = ${merchantId}`);
  await tx.run(
    sql`INSERT INTO ${target} (${listed}) SELECT ${listed} FROM ${copy}
        WHERE merchant_id = ${merchantId} AND snapshot = ${name} ORDER BY ${order}`,
  );
  if (shape.keys.length === 0 || !shape.shadow.has(ROWID)) return;
  await tx.run(
    sql`UPDATE ${copy} AS s SET ${quote(ROWID)} = t.rowid FROM ${target} t
        WHERE s.merchant_id = ${merchantId} AND s.snapshot = ${name} AND t.merchant_id = ${merchantId}
          AND ${keysMatch(shape.keys)}`,
  );
}
