import { sql, type Executor, type Sql } from "../database";

/**
 * The tie-breaker after a timestamp ordering (timestamps have one-second resolution): insertion
 * order. SQLite has it as `rowid`; PostgreSQL has no such column, so there the id decides.
 */
export function insertionOrder(ex: Executor, alias?: string): Sql {
  const column = ex.dialect === "sqlite" ? "rowid" : "id";
  return sql.raw(alias ? `${alias}.${column}` : column);
}

/** `LIKE ?` text for a keyword search: %keyword% with LIKE's own characters escaped (ESCAPE '\'). */
export function containsPattern(keywords: string): string {
  return `%${keywords.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
