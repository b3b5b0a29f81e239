/**
 * The storage contract every dialect implements (SQLite, the embedded default, and PostgreSQL for
 * a shared sandbox). Services never see SQL: they call the repositories of src/storage/repositories,
 * and the repositories run `sql` queries on whatever Executor they are handed — the Database for
 * a single statement, or the Transaction of a unit of work. A unit of work is explicit: it is the
 * `tx` passed in, never ambient state, so nothing depends on a call being synchronous.
 */
import { ApiError, DELETED_MEANWHILE } from "../domain/errors";

export type Dialect = "sqlite" | "postgres";

/** A value a query may carry: flags are integers 0/1 and money integer cents, in both dialects; bytes are a BLOB (SQLite) or bytea (PostgreSQL). */
export type SqlValue = string | number | Uint8Array | null;

/** A piece of SQL with its parameters, from the `sql` tag. Nested Sql values are inlined. */
export class Sql {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/**
 * Builds a query: every `${value}` becomes a parameter, except an Sql (a fragment from `sql`,
 * `sql.raw` or `sql.join`), which is inlined.
 * @example sql`SELECT * FROM customers WHERE merchant_id = ${merchantId} ${limit ? sql`LIMIT ${limit}` : sql``}`
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values);
}

/** Text inlined as it is: table or column names and keywords chosen from a fixed list, never input. */
sql.raw = (text: string): Sql => new Sql([text], []);

/** Fragments joined by a separator (", " by default). */
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

export interface RenderedSql {
  text: string;
  values: SqlValue[];
}

/**
 * SQLite's placeholder: `+?`, a bare `?` behind a unary plus (a no-op on any value, and a bare
 * parameter has no affinity either, so every comparison, insert and LIMIT means the same).
 * A bare `?` that SQLite's planner reads while preparing (a LIMIT or OFFSET; an equality it checks
 * against a partial index's WHERE, as `merchant_id = ?` on `transactions` is) marks the statement
 * to be prepared again each time that parameter is bound, which bun:sqlite does on every run:
 * 15–20 µs per execution, more than the query (GET /transaction's page query: 70 µs → 36 µs,
 * a pay()'s invoice lookups ~20 µs each). Behind `+` the planner never looks at the value, so a
 * statement is prepared once and keeps the plan `EXPLAIN QUERY PLAN` shows for it
 * (tests/storage/query-plans.test.ts), whatever the values.
 */
const SQLITE_PLACEHOLDER = "+?";

/** The query text with the dialect's placeholders ("+?" or "$1"), and its parameters in order. */
export function renderSql(query: Sql, dialect: Dialect): RenderedSql {
  const values: SqlValue[] = [];
  let text = "";
  const walk = (q: Sql) => {
    q.strings.forEach((part, index) => {
      text += part;
      if (index >= q.values.length) return;
      const value = q.values[index];
      if (value instanceof Sql) walk(value);
      else {
        values.push(parameter(value));
        text += dialect === "postgres" ? `$${values.length}` : SQLITE_PLACEHOLDER;
      }
    });
  };
  walk(query);
  return { text, values };
}

/** A value as a driver parameter: strings, numbers and bytes as they are, null for undefined, 1/0 for booleans. */
export function parameter(value: unknown): SqlValue {
  if (value === undefined || value === null) return null;
  if (typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`a SQL parameter must be a string, a number, bytes or null, not ${typeof value}`);
}

/** What a statement changed. */
export interface RunResult {
  changes: number;
}

/** Runs statements: the Database itself (each statement on its own) or a Transaction. */
export interface Executor {
  readonly dialect: Dialect;
  all<T>(query: Sql): Promise<T[]>;
  get<T>(query: Sql): Promise<T | undefined>;
  run(query: Sql): Promise<RunResult>;
}

/** A unit of work in progress. Everything in it must use it, never the Database. */
export interface Transaction extends Executor {
  /** A nested unit (a savepoint): a throw undoes only what it wrote, then rethrows. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
}

/** A row of a batched statement ({@link WriteBatch}, {@link ReadBatch}): its values by name, as JSON carries them. */
export type BatchRow = Record<string, string | number | null>;

/**
 * How a held write may go out with the same write of other units of work ending at the same moment,
 * as one statement (PostgreSQL's group commit, ./postgres/group-commit.ts). The repository that owns
 * the SQL declares it; the PostgreSQL layer only gathers the rows and runs the statement.
 */
export interface WriteBatch {
  /** Names the statement's shape: writes with the same key, of any units, are written by one statement. */
  key: string;
  /** This write's values: a row of the batch. */
  row: BatchRow;
  /**
   * Every row the batch writes, from `rows` (a JSON array parameter of the writes' rows, each with
   * `_row`, its place in the batch counting from 1): a SELECT answering `_row` beside the columns.
   */
  select(rows: Sql): Sql;
  /**
   * The write of what `select` answered, read from `source` (the relation holding it): an INSERT …
   * SELECT, or an UPDATE … FROM that changes each row at most once (markInvoice's collapses duplicates).
   */
  insert(source: Sql): Sql;
}

/**
 * A {@link WriteBatch.select} for rows of `table`'s own type: the batch's JSON rows taken apart by
 * PostgreSQL as rows of the table (a column the rows leave out is NULL there, and the INSERT names
 * only its own columns), in the batch's order, each with `_row`.
 */
export function rowsOfTable(table: string): WriteBatch["select"] {
  return (rows) => sql`SELECT r.*, r.ordinality AS _row
      FROM json_populate_recordset(NULL::${sql.raw(table)}, ${rows}) WITH ORDINALITY AS r`;
}

/**
 * How a plain read made outside a unit of work (or before its BEGIN) may go out with the same read of
 * concurrent requests, as one statement (PostgreSQL, ./postgres/batched-reads.ts). Under READ
 * COMMITTED it answers what the read alone would have answered a moment later.
 */
export interface ReadBatch {
  /** Names the statement's shape: reads with the same key are answered by one statement. */
  key: string;
  /** This read's parameters: a row of the batch. */
  row: BatchRow;
  /** The SELECT answering every read of a batch, from `rows` (as {@link WriteBatch.select}'s), each answer row with `_row`. */
  select(rows: Sql): Sql;
}

/**
 * One row that `query` answers; on PostgreSQL outside a transaction, read together with the same read of
 * concurrent requests ({@link ReadBatch}). SQLite, and a read inside a transaction, run `query` as it is.
 */
export function getBatched<T>(ex: Executor, query: Sql, batch: ReadBatch): Promise<T | undefined> {
  const batcher = ex as Executor & { getBatched?: <R>(query: Sql, batch: ReadBatch) => Promise<R | undefined> };
  return batcher.getBatched ? batcher.getBatched<T>(query, batch) : ex.get<T>(query);
}

/** How {@link writeBehind} may send a write. */
export interface HoldOptions {
  /** Told what the write changed, once it ran. */
  then?: (result: RunResult) => void;
  /**
   * The write reads no table that another held write of the unit writes (an INSERT … VALUES; the
   * outbox's INSERT … SELECT from webhooks), so PostgreSQL may run it in one statement with them,
   * as data-modifying CTEs that all see the snapshot the statement began with.
   */
  independent?: boolean;
  /** How the write, when `independent`, goes out with the same write of concurrent units (PostgreSQL). */
  batch?: WriteBatch;
}

/**
 * A write whose answer the caller does not need (it built the row itself): on PostgreSQL it is held
 * and sent with the unit of work's next statement or its COMMIT, saving a round trip; a failure
 * fails the unit as if thrown here. Elsewhere (SQLite, or outside a unit of work) it runs now.
 */
export async function writeBehind(ex: Executor, query: Sql, options: HoldOptions = {}): Promise<void> {
  const holder = ex as Executor & { hold?: (query: Sql, options?: HoldOptions) => void };
  if (holder.hold) return holder.hold(query, options);
  const result = await ex.run(query);
  options.then?.(result);
}

export interface Database extends Executor {
  /** One unit of work: committed when `work` resolves, rolled back (and rethrown) when it throws. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * Resolves once every write acknowledged so far is durable, and rejects when the commit that
   * held them failed (SQLite's group commit shares one commit between concurrent requests).
   */
  settled(): Promise<void>;
  /**
   * For a per-process cache of shared records (the merchant by key): a mark that stays the same
   * while no other connection has committed to this database, or null when that cannot be known
   * without a query — on PostgreSQL other processes commit at any time, so a cache must not be
   * trusted there. SQLite answers from `PRAGMA data_version` (no I/O): another process writing the
   * same file changes it; this connection's own commits do not.
   */
  foreignCommitMark(): number | null;
  close(): Promise<void>;
}

/** Thrown by every dialect when an INSERT or UPDATE breaks a unique constraint. */
export class UniqueViolation extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UniqueViolation";
  }
}

/**
 * Thrown by every dialect when a write names a row that is gone. The services check what they
 * reference first, so it means another unit of work deleted that row meanwhile (a sandbox reset or
 * a delete at the same moment, on PostgreSQL): the request answers 422 invalid_state, and nothing
 * of its unit of work is kept. `detail` names the constraint, for a debugger; it is not in the
 * answer (it could quote a key).
 */
export class ForeignKeyViolation extends ApiError {
  constructor(readonly detail: string) {
    super("invalid_state", DELETED_MEANWHILE);
    this.name = "ForeignKeyViolation";
  }
}
