/**
 * The storage API on PostgreSQL, through Bun's built-in client (`SQL` from "bun"): no driver to
 * install, a connection pool, and named prepared statements cached per connection for every
 * statement with parameters (Bun keeps the 1,024 each connection used last).
 *
 * What it adds to the raw client so repositories see the same thing as on SQLite:
 * - statements rendered from the `sql` tag with $1.. placeholders;
 * - int8 and numeric results (COUNT, SUM, BIGINT money columns) as JS numbers, booleans as 0/1;
 * - a unique violation (SQLSTATE 23505) as {@link UniqueViolation};
 * - `transaction()` as BEGIN/COMMIT on one reserved connection, nested calls as savepoints, sent in
 *   as few round trips as the statements allow (./unit-of-work.ts).
 */
import { SQL } from "bun";
import {
  type Database,
  type HoldOptions,
  type ReadBatch,
  type RunResult,
  type Sql,
  type Transaction,
} from "../database";
import { renderShaped } from "../sql-shapes";
import type { StatementTrace } from "../statement-count";
import { BatchedReads } from "./batched-reads";
import { GroupCommit } from "./group-commit";
import { rowsOf, translate, type ResultArray } from "./results";
import { UnitOfWork, type Batching } from "./unit-of-work";

export interface PostgresOptions {
  /** Connections in the pool. Default 10. */
  max?: number;
  /** Seconds to wait for a connection to open. Default 10. */
  connectionTimeout?: number;
  /** Seconds an unused connection stays open before the pool closes it. Default: never closed. */
  idleTimeout?: number;
  /** application_name the server shows in pg_stat_activity. Default "paysandbox". */
  applicationName?: string;
  /** Told of every statement sent and every round trip (the bench's and the tests' counts). */
  trace?: StatementTrace;
}

/** A transaction's executor; `script` runs several statements at once (migrations only). */
export interface PostgresTransaction extends Transaction {
  transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T>;
  /** A write whose answer nobody waits on: sent with the unit's next statement or its COMMIT (./unit-of-work.ts). */
  hold(query: Sql, options?: HoldOptions): void;
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
  return new PgDatabase(client, options.trace);
}

/** Rows, one row and changes from a query's answer, whoever sends it. */
abstract class PgRunner {
  readonly dialect = "postgres" as const;

  protected abstract query(q: Sql): Promise<ResultArray>;

  async all<T>(q: Sql): Promise<T[]> {
    return rowsOf<T>(await this.query(q));
  }

  async get<T>(q: Sql): Promise<T | undefined> {
    return rowsOf<T>(await this.query(q))[0];
  }

  async run(q: Sql): Promise<RunResult> {
    const result = await this.query(q);
    return { changes: result.affectedRows ?? 0 };
  }
}

class PgTransaction extends PgRunner implements PostgresTransaction {
  constructor(private readonly unit: UnitOfWork) {
    super();
  }

  protected query(q: Sql): Promise<ResultArray> {
    return this.unit.query(q);
  }

  hold(q: Sql, options?: HoldOptions): void {
    this.unit.hold(q, options);
  }

  getBatched<T>(q: Sql, batch: ReadBatch): Promise<T | undefined> {
    return this.unit.getBatched<T>(q, batch);
  }

  transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
    return this.unit.savepoint(() => work(new PgTransaction(this.unit)));
  }

  script(text: string): Promise<void> {
    return this.unit.script(text);
  }
}

/**
 * Times a unit of work is run when PostgreSQL rolled it back for a reason another run does not
 * meet again: a deadlock's victim, or a prepared statement a schema change made stale.
 */
const ATTEMPTS = 3;

/**
 * Two units that lock the same rows in opposite orders (a reset and a customer update, say):
 * PostgreSQL rolls one back. Or the columns of a table a prepared `SELECT *` reads changed (a
 * migration run by a newer process, a test's ALTER TABLE): inside a transaction the statement fails
 * once on each connection that had prepared it ("cached plan must not change result type"), and
 * Bun prepares it again for the next run; outside one Bun does that by itself.
 */
function runsAgain(error: unknown): boolean {
  if (!(error instanceof SQL.PostgresError)) return false;
  return error.errno === "40P01" || (error.errno === "0A000" && error.routine === "RevalidateCachedQuery");
}

class PgDatabase extends PgRunner implements PostgresDatabase {
  constructor(
    private readonly client: SQL,
    private readonly trace: StatementTrace | undefined,
  ) {
    super();
    const send = (q: Sql) => this.alone(q);
    this.batching = { writes: new GroupCommit(send), reads: new BatchedReads(send) };
  }

  private inFlight = 0;
  /** Concurrent requests' reads and ends of units of work, as one statement each (./group-commit.ts). */
  private readonly batching: Batching;

  /** A read's first row, read together with the same read of concurrent requests (./batched-reads.ts). */
  getBatched<T>(q: Sql, batch: ReadBatch): Promise<T | undefined> {
    return this.batching.reads.get<T>(q, batch);
  }

  /**
   * One statement on a pooled connection, told to the trace as a round trip of its own unless it
   * shares one: a batch's statement (its own, whatever else is out), or {@link query}'s.
   */
  private async alone(q: Sql, ownRoundTrip = true): Promise<ResultArray> {
    const { text, values } = renderShaped(q, "postgres");
    this.trace?.sent([text], ownRoundTrip);
    try {
      return (await this.client.unsafe(text, values)) as ResultArray;
    } catch (error) {
      throw translate(error);
    }
  }

  /**
   * One statement on a pooled connection: a round trip of its own, which statements sent while it
   * is out (reads started together, on other connections of the pool) share in time.
   */
  protected async query(q: Sql): Promise<ResultArray> {
    const ownRoundTrip = this.inFlight === 0;
    this.inFlight++;
    try {
      return await this.alone(q, ownRoundTrip);
    } finally {
      this.inFlight--;
    }
  }

  async transaction<T>(work: (tx: PostgresTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const unit = new UnitOfWork(this.client, this.trace, this.batching);
      try {
        const result = await work(new PgTransaction(unit));
        await unit.commit();
        return result;
      } catch (error) {
        await unit.rollback();
        // Nothing of it was kept, so it runs again.
        if (!runsAgain(error) || attempt >= ATTEMPTS) throw error;
      } finally {
        // Back to the pool, or closed by Bun if it is still inside a transaction (a failed ROLLBACK).
        await unit.release();
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
