import { sql, type Executor, type Sql } from "../database";

/**
 * The tie-breaker after a timestamp ordering (timestamps have one-second resolution): insertion
 * order. SQLite has it as `rowid`; on PostgreSQL it is the identity column `seq` (its migration 030)
 * of merchants, customers, payment_methods, invoices, transactions and deposits.
 */
export function insertionOrder(ex: Executor, alias?: string): Sql {
  const column = ex.dialect === "sqlite" ? "rowid" : "seq";
  return sql.raw(alias ? `${alias}.${column}` : column);
}

/**
 * `text LIKE %keywords%`, ignoring case in both dialects: SQLite's LIKE ignores ASCII case already;
 * PostgreSQL's is case-sensitive, so there it is ILIKE. LIKE's own characters in the keywords are
 * escaped (ESCAPE '\').
 */
export function containsText(ex: Executor, text: Sql, keywords: string): Sql {
  const like = sql.raw(ex.dialect === "postgres" ? "ILIKE" : "LIKE");
  return sql`${text} ${like} ${containsPattern(keywords)} ESCAPE '\\'`;
}

/** `LIKE ?` text for a keyword search: %keyword% with LIKE's own characters escaped (ESCAPE '\'). */
export function containsPattern(keywords: string): string {
  return `%${keywords.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
