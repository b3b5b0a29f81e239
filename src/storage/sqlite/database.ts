/**
 * The embedded SQLite dialect of the storage contract (src/storage/database.ts), on bun:sqlite.
 *
 * One connection serves the process, so units of work take turns: a transaction holds the
 * connection from BEGIN (or SAVEPOINT) to COMMIT, and a statement outside one waits until it
 * ends. Nothing relies on a call being synchronous; when nothing waits, a statement runs at once.
 *
 * Group commit (on for the server, off for in-process tests): the writes of every request in one
 * turn of the event loop share one SQLite transaction, committed at the end of that turn
 * (setImmediate); each unit of work inside it is a SAVEPOINT, so a request that fails still rolls
 * back alone. `settled()` resolves once the batch holding a request's writes is committed, and
 * the server answers only then: an acknowledged write is on disk, yet N concurrent writes cost one
 * commit instead of N.
 */
import { Database as BunDatabase, type Statement } from "bun:sqlite";
import type { Logger } from "../../lib/logger";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { configure } from "./open";
import { migrateSqlite } from "./migrate";
import { BackgroundCheckpointer } from "./checkpointer";
import { SqlShapes } from "../sql-shapes";
import {
  ForeignKeyViolation,
  renderSql,
  UniqueViolation,
  type Database,
  type RunResult,
  type Sql,
  type SqlValue,
  type Transaction,
} from "../database";

type Params = SqlValue[];

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  // ROWID: a row inserted at a rowid in use (a snapshot's restore puts rows back at theirs).
  return (
    code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_ROWID"
  );
}

function translate(error: unknown): unknown {
  if (isUniqueViolation(error)) return new UniqueViolation((error as Error).message, { cause: error });
  if ((error as { code?: unknown })?.code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    return new ForeignKeyViolation((error as Error).message);
  }
  return error;
}

export interface SqliteOptions {
  /** Share one commit between the requests of a turn of the event loop (the server). */
  groupCommit?: boolean;
  /**
   * Run WAL checkpoints on a thread of their own instead of inside a COMMIT on the event loop
   * (src/storage/sqlite/checkpointer.ts; the server, for a file).
   */
  backgroundCheckpoint?: boolean;
  log?: Logger;
}

export class SqliteDatabase implements Database {
  readonly dialect = "sqlite" as const;
  /** Statements by query text, prepared once. */
  private readonly statements = new Map<string, Statement>();
  /**
   * Statements by the query's shape (../sql-shapes.ts): a static query (every hot path) by its
   * template, one built from fragments by the template and its fragments.
   */
  private readonly shapes = new SqlShapes<Statement>("sqlite", (text) => this.statementOf(text));
  private busy = false;
  private readonly waiters: (() => void)[] = [];
  private batchOpen = false;
  private batch: Promise<void> = Promise.resolve();
  private savepoints = 0;
  /** Group-commit batches whose COMMIT failed, ever. */
  commitFailures = 0;
  /** Group-commit batches committed, ever (for the bench and tests). */
  batches = 0;
  /** The checkpoint thread, when `backgroundCheckpoint` is on for a file. */
  readonly checkpointer: BackgroundCheckpointer | undefined;

  constructor(
    /** The bun:sqlite connection (for migrations, pragmas and the statement counter). */
    readonly raw: BunDatabase,
    private readonly options: SqliteOptions = {},
    path?: string,
  ) {
    if (options.backgroundCheckpoint && path && path !== ":memory:") {
      this.checkpointer = new BackgroundCheckpointer(raw, path, (message) => options.log?.error(message));
    }
  }

  // --- statements -------------------------------------------------------------------------

  /** The prepared statement of a query and its parameters. */
  prepare(query: Sql): { statement: Statement; params: Params } {
    const shaped = this.shapes.lookup(query);
    if (shaped) return { statement: shaped.payload, params: shaped.params };
    const { text, values } = renderSql(query, "sqlite");
    return { statement: this.statementOf(text), params: values };
  }

  /** The statement of a query text, prepared once. */
  private statementOf(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.raw.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  allNow<T>(query: Sql): T[] {
    const { statement, params } = this.prepare(query);
    return statement.all(...params) as T[];
  }

  getNow<T>(query: Sql): T | undefined {
    const { statement, params } = this.prepare(query);
    return (statement.get(...params) as T | null) ?? undefined;
  }

  runNow(query: Sql): RunResult {
    const { statement, params } = this.prepare(query);
    try {
      return { changes: statement.run(...params).changes };
    } catch (error) {
      throw translate(error);
    }
  }

  /** Runs a fixed transaction-control statement (BEGIN, COMMIT, SAVEPOINT "unit", ...), prepared once. */
  private control(text: string): void {
    this.statementOf(text).run();
  }

  // --- taking turns -----------------------------------------------------------------------

  private acquire(): Promise<void> | undefined {
    if (!this.busy) {
      this.busy = true;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy = false;
  }

  /** Runs `step` when no unit of work holds the connection. */
  private async whenFree<T>(step: () => T): Promise<T> {
    const wait = this.acquire();
    if (wait) await wait;
    try {
      return step();
    } finally {
      this.release();
    }
  }

  all<T>(query: Sql): Promise<T[]> {
    if (this.busy) return this.whenFree(() => this.allNow<T>(query));
    return Promise.resolve(this.allNow<T>(query));
  }

  get<T>(query: Sql): Promise<T | undefined> {
    if (this.busy) return this.whenFree(() => this.getNow<T>(query));
    return Promise.resolve(this.getNow<T>(query));
  }

  run(query: Sql): Promise<RunResult> {
    const step = () => {
      this.joinBatch();
      return this.runNow(query);
    };
    if (this.busy) return this.whenFree(step);
    try {
      return Promise.resolve(step());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  // --- units of work ----------------------------------------------------------------------

  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const wait = this.acquire();
    if (wait) await wait;
    try {
      // Inside this turn's batch, or inside a transaction opened on the connection outside this
      // contract: a savepoint, so a throw undoes only this unit.
      const grouped = this.joinBatch() || this.raw.inTransaction;
      this.control(grouped ? 'SAVEPOINT "unit"' : "BEGIN IMMEDIATE");
      const tx = new SqliteTransaction(this);
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        tx.ended = true;
        if (grouped) {
          this.control('ROLLBACK TO "unit"');
          this.control('RELEASE "unit"');
        } else if (this.raw.inTransaction) this.control("ROLLBACK");
        throw error;
      }
      tx.ended = true;
      this.control(grouped ? 'RELEASE "unit"' : "COMMIT");
      return result;
    } finally {
      this.release();
    }
  }

  /** A savepoint inside a unit of work (Transaction.transaction). */
  async nested<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const name = `"nested_${++this.savepoints}"`;
    this.raw.run(`SAVEPOINT ${name}`);
    const tx = new SqliteTransaction(this);
    try {
      const result = await work(tx);
      tx.ended = true;
      this.raw.run(`RELEASE ${name}`);
      return result;
    } catch (error) {
      tx.ended = true;
      this.raw.run(`ROLLBACK TO ${name}`);
      this.raw.run(`RELEASE ${name}`);
      throw error;
    }
  }

  // --- group commit -----------------------------------------------------------------------

  /** Opens this turn's batch when group commit is on; true when the caller's writes are in one. */
  private joinBatch(): boolean {
    if (!this.options.groupCommit) return false;
    if (this.batchOpen) return true;
    // A transaction opened on the connection outside this contract is under way: the statement
    // runs inside it and commits with it.
    if (this.raw.inTransaction) return false;
    this.control("BEGIN IMMEDIATE");
    this.batchOpen = true;
    let done!: () => void;
    let failed!: (error: unknown) => void;
    this.batch = new Promise<void>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    // Nobody may be left with an unobserved rejection: settled() hands it to those who wait.
    this.batch.catch(() => {});
    setImmediate(() => {
      void this.whenFree(() => this.commitBatch()).then(
        (error) => (error === undefined ? done() : failed(error)),
        failed,
      );
    });
    return true;
  }

  /** Commits the open batch; returns the error when the COMMIT failed (everything in it is gone). */
  private commitBatch(): unknown {
    if (!this.batchOpen) return undefined;
    this.batchOpen = false;
    this.batches++;
    try {
      this.control("COMMIT");
      this.checkpointer?.afterCommit(this.batches);
      return undefined;
    } catch (error) {
      this.commitFailures++;
      this.options.log?.error(`group commit failed; the batch was rolled back: ${(error as Error)?.stack ?? error}`);
      try {
        this.control("ROLLBACK");
      } catch {
        // already rolled back
      }
      return error ?? new Error("COMMIT failed");
    }
  }

  /**
   * `PRAGMA data_version`, read once per turn of the event loop: outside a transaction each read
   * opens and ends a read transaction (~2.4 µs, a charge's merchant cache check), inside one ~0.07.
   * Every request served in a turn was received before that turn's I/O poll returned, so before
   * the turn's first read: the mark it is given is as late as a read at its arrival would be, and a
   * commit another process makes afterwards is seen from the next turn on.
   */
  foreignCommitMark(): number {
    if (this.mark === undefined) {
      this.mark = (this.statementOf("PRAGMA data_version").get() as { data_version: number }).data_version;
      setImmediate(this.forgetMark);
    }
    return this.mark;
  }

  /** This turn's data_version (foreignCommitMark), until the next turn. */
  private mark: number | undefined;
  private readonly forgetMark = () => {
    this.mark = undefined;
  };

  settled(): Promise<void> {
    return this.batchOpen ? this.batch : Promise.resolve();
  }

  /** Commits any open batch now (shutdown). */
  async flush(): Promise<void> {
    await this.whenFree(() => this.commitBatch());
  }

  async close(): Promise<void> {
    await this.flush();
    await this.checkpointer?.close();
    try {
      this.raw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } finally {
      this.raw.close();
    }
  }
}

class SqliteTransaction implements Transaction {
  readonly dialect = "sqlite" as const;
  ended = false;

  constructor(private readonly db: SqliteDatabase) {}

  private check(): void {
    if (this.ended) throw new Error("a statement ran on a unit of work that had already ended");
  }

  all<T>(query: Sql): Promise<T[]> {
    this.check();
    return Promise.resolve(this.db.allNow<T>(query));
  }

  get<T>(query: Sql): Promise<T | undefined> {
    this.check();
    return Promise.resolve(this.db.getNow<T>(query));
  }

  run(query: Sql): Promise<RunResult> {
    this.check();
    try {
      return Promise.resolve(this.db.runNow(query));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    this.check();
    return this.db.nested(work);
  }
}

/**
 * Opens the SQLite database at `path` (a file, created on demand, or ":memory:") behind the
 * storage contract, with the pragmas it relies on and every pending migration applied.
 */
export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<SqliteDatabase> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const raw = new BunDatabase(path, { create: true, strict: true });
  try {
    configure(raw);
    await migrateSqlite(raw);
  } catch (error) {
    raw.close();
    throw error;
  }
  return new SqliteDatabase(raw, options, path);
}
