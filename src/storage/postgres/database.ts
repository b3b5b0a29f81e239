/**
 * The storage API on PostgreSQL, through Bun's built-in client (`SQL` from "bun"): no driver to
 * install, a connection pool, and named prepared statements cached per connection for every
 * statement with parameters (Bun keeps the 1,024 each connection used last).
 *
 * What it adds to the raw client so repositories see the same thing as on SQLite:
 * - statements rendered from the `sql` tag with $1.. placeholders;
 * - int8 and numeric results (COUNT, SUM, BIGINT money columns) as JS numbers, booleans as 0/1;
 * - a unique violation (SQLSTATE 23505) as {@link UniqueViolation};
 * - `transaction()` as BEGIN/COMMIT on one reserved connection, nested calls as savepoints.
 */
import { SQL, type TransactionSQL } from "bun";
import {
  ForeignKeyViolation,
  renderSql,
  UniqueViolation,
  type Database,
  type Sql,
  type Transaction,
} from "../database";

/** PostgreSQL type OIDs whose text form Bun hands back as strings, and booleans. */
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

export interface PostgresOptions {
  /** Connections in the pool. Default 10. */
  max?: number;
  /** Seconds to wait for a connection to open. Default 10. */
  connectionTimeout?: number;
  /** Seconds an unused connection stays open before the pool closes it. Default: never closed. */
  idleTimeout?: number;
  /** application_name the server shows in pg_stat_activity. Default "paysandbox". */
  applicationName?: string;
}

/** A transaction's executor; `script` runs several statements at once (migrations only). */
export interface PostgresTransaction extends Transaction {
  transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T>;
  /** Runs SQL text holding several statements and no parameters (the simple query protocol). */
  script(text: string): Promise<void>;
}

export interface PostgresDatabase extends Database {
  readonly dialect: "postgres";
  transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T>;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}

/**
 * Connects to PostgreSQL and checks that the server answers (so a wrong URL stops start-up with
 * a clear message, not the first request with a 500).
 *
 * @example
 * const db = await openPostgres("postgres://sandbox@db.internal:5432/paysandbox");
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresDatabase> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`expected a postgres:// URL, got ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new Error(`expected a postgres:// URL, got ${parsed.protocol}// (${redactUrl(url)})`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  const client = new SQL(url, {
    adapter: "postgres",
    // Stated explicitly: Bun lets PGDATABASE override the database named in the URL.
    ...(database ? { database } : {}),
    max: options.max ?? 10,
    connectionTimeout: options.connectionTimeout ?? 10,
    ...(options.idleTimeout === undefined ? {} : { idleTimeout: options.idleTimeout }),
    prepare: true,
    bigint: false,
    connection: { application_name: options.applicationName ?? "paysandbox", TimeZone: "UTC" },
  });
  try {
    await client.unsafe("SELECT 1");
  } catch (error) {
    await client.close({ timeout: 0 }).catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${reason}`, { cause: error });
  }
  return new PgDatabase(client);
}

class PgExecutor {
  readonly dialect = "postgres" as const;

  constructor(protected readonly client: SQL) {}

  async all<T>(q: Sql): Promise<T[]> {
    return rowsOf<T>(await this.query(q));
  }

  async get<T>(q: Sql): Promise<T | undefined> {
    return rowsOf<T>(await this.query(q))[0];
  }

  async run(q: Sql): Promise<{ changes: number }> {
    const result = await this.query(q);
    return { changes: result.affectedRows ?? 0 };
  }

  private async query(q: Sql): Promise<ResultArray> {
    const { text, values } = renderSql(q, "postgres");
    try {
      return (await this.client.unsafe(text, values)) as ResultArray;
    } catch (error) {
      throw translate(error);
    }
  }
}

class PgTransaction extends PgExecutor implements PostgresTransaction {
  constructor(private readonly tx: TransactionSQL) {
    super(tx);
  }

  transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
    return this.tx.savepoint(async (savepoint) => work(new PgTransaction(savepoint))) as Promise<T>;
  }

  async script(text: string): Promise<void> {
    try {
      await this.tx.unsafe(text).simple();
    } catch (error) {
      throw translate(error);
    }
  }
}

/** Times a unit of work is run when PostgreSQL chose it as a deadlock's victim (it was rolled back). */
const DEADLOCK_ATTEMPTS = 3;

class PgDatabase extends PgExecutor implements PostgresDatabase {
  async transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.client.begin(async (tx) => work(new PgTransaction(tx)))) as T;
      } catch (error) {
        // Two units that lock the same rows in opposite orders (a reset and a customer update, say):
        // PostgreSQL rolls one back. Nothing of it was kept, so it runs again, after the other.
        const deadlock = error instanceof SQL.PostgresError && error.errno === "40P01";
        if (!deadlock || attempt >= DEADLOCK_ATTEMPTS) throw error;
      }
    }
  }

  async settled(): Promise<void> {
    // Every statement outside a transaction, and every COMMIT, is acknowledged by the server
    // only once it is durable (synchronous_commit is the server's setting, not ours).
  }

  foreignCommitMark(): null {
    // Other processes share the database and commit at any time: nothing cached may be trusted.
    return null;
  }

  async close(): Promise<void> {
    await this.client.close({ timeout: 5 });
  }
}

type ResultArray = Record<string, unknown>[] & SQL.ResultMetadata;

/** Plain row objects with int8/numeric as numbers and booleans as 0/1, like SQLite's. */
function rowsOf<T>(result: ResultArray): T[] {
  const columns = result.columns ?? [];
  const converted = columns.filter((column) => column.type === INT8 || column.type === NUMERIC || column.type === BOOL);
  const rows = [...result];
  if (converted.length === 0) return rows as T[];
  for (const row of rows) {
    for (const column of converted) {
      const value = row[column.name];
      if (value === null || value === undefined) continue;
      row[column.name] = column.type === BOOL ? (value ? 1 : 0) : toNumber(value, column.name, column.type === INT8);
    }
  }
  return rows as T[];
}

function toNumber(value: unknown, name: string, integer: boolean): number {
  const number = typeof value === "number" ? value : Number(value);
  if (integer && !Number.isSafeInteger(number)) {
    throw new RangeError(`column ${name}: ${String(value)} is beyond the integers a JS number holds exactly`);
  }
  return number;
}

function translate(error: unknown): unknown {
  if (error instanceof SQL.PostgresError && error.errno === "23505") {
    // The constraint's name, never error.detail: that quotes the key, which may be a secret's hash.
    return new UniqueViolation(`unique constraint ${error.constraint ?? "(unnamed)"} violated`, { cause: error });
  }
  if (error instanceof SQL.PostgresError && error.errno === "23503") {
    return new ForeignKeyViolation(`foreign key ${error.constraint ?? "(unnamed)"} violated`);
  }
  return error;
}
