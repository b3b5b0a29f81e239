/**
 * The storage API both dialects implement (SQLite through bun:sqlite, PostgreSQL through Bun.sql).
 * Repositories write portable SQL with the `sql` tag and run it on an {@link Executor}: the
 * {@link Database} itself, or the `tx` of a unit of work. Where a statement must differ, a
 * repository branches on `db.dialect`.
 *
 * Conventions that keep one statement valid in both dialects:
 * - parameters are strings, numbers (integers for cents, counts and 0/1 flags) or null;
 * - timestamps are TEXT 'YYYY-MM-DD HH:MM:SS' in UTC;
 * - rows come back as plain objects whose integer columns are JS numbers;
 * - upserts use `INSERT ... ON CONFLICT (...) DO ...`, and `RETURNING` works in both.
 */

export type Dialect = "sqlite" | "postgres";

/** A parameter value: what both dialects bind the same way. */
export type SqlValue = string | number | null;

/** SQL with parameters, built by the {@link sql} tag. Nested Sql values are inlined; other values are parameters. */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/**
 * Builds a statement from a template: `${value}` becomes a parameter, `${otherSql}` is inlined.
 *
 * @example
 * sql`SELECT * FROM merchants WHERE id = ${id} ${limit ? sql`LIMIT ${limit}` : sql``}`
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql([...strings], values);
}

/** Fixed SQL text (identifiers, keywords, ORDER BY clauses chosen from a list): never user input. */
sql.raw = (text: string): Sql => new Sql([text], []);

/** Joins fragments with a separator, e.g. a list of conditions with " AND ". */
sql.join = (parts: readonly Sql[], separator = ", "): Sql => {
  if (parts.length === 0) return new Sql([""], []);
  const strings: string[] = [""];
  const values: unknown[] = [];
  parts.forEach((part, index) => {
    if (index > 0) strings[strings.length - 1] += separator;
    values.push(part);
    strings.push("");
  });
  return new Sql(strings, values);
};

/** The statement text for a dialect ("?" placeholders for SQLite, "$1", "$2", ... for PostgreSQL) and its parameters. */
export function renderSql(q: Sql, dialect: Dialect): { text: string; values: SqlValue[] } {
  const values: SqlValue[] = [];
  let text = "";
  const walk = (part: Sql) => {
    part.strings.forEach((chunk, index) => {
      text += chunk;
      if (index >= part.values.length) return;
      const value = part.values[index];
      if (value instanceof Sql) {
        walk(value);
        return;
      }
      values.push(checkValue(value, values.length + 1));
      text += dialect === "postgres" ? `$${values.length}` : "?";
    });
  };
  walk(q);
  return { text, values };
}

function checkValue(value: unknown, position: number): SqlValue {
  if (value === null || typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new TypeError(`SQL parameter ${position}: expected a finite number, got ${value}`);
    return value;
  }
  const got = value === undefined ? "undefined" : typeof value === "object" ? value.constructor?.name : typeof value;
  throw new TypeError(
    `SQL parameter ${position}: expected a string, a number or null, got ${got}` +
      (typeof value === "boolean" ? " (flags are 0 or 1)" : ""),
  );
}

/** Runs statements. The Database itself, or the `tx` of a unit of work. */
export interface Executor {
  readonly dialect: Dialect;
  all<T>(q: Sql): Promise<T[]>;
  get<T>(q: Sql): Promise<T | undefined>;
  run(q: Sql): Promise<{ changes: number }>;
}

/** The executor of a unit of work: its own `transaction()` is a savepoint inside it. */
export interface Transaction extends Executor {
  /** A savepoint: rolls back only its own writes (and rethrows) when `work` throws. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

export interface Database extends Executor {
  /**
   * One unit of work: commits when `work` resolves, rolls back (and rethrows) when it throws.
   * Everything inside must use `tx`, never the Database. Nested calls on tx are savepoints.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Resolves once every write acknowledged so far is durable (SQLite group commit; PG: at once). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A write broke a unique constraint (both dialects). On PostgreSQL the statement also aborts the
 * surrounding transaction: catch it outside the unit of work, or around a nested `tx.transaction`.
 */
export class UniqueViolation extends Error {
  override readonly name = "UniqueViolation";
}
