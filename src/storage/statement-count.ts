/**
 * Counting the SQL a request runs, on either database (the bench's "statements and round trips per
 * request", and the tests that keep those numbers from creeping up). SQLite's counter is
 * ./sqlite/statement-counter.ts; PostgreSQL reports to a {@link StatementTrace} given to
 * openPostgres (./postgres/database.ts).
 */

/** What a counted statement did, by its first keyword. */
export type StatementKind = "read" | "write" | "control";

export interface StatementCount {
  read: number;
  write: number;
  /** BEGIN, COMMIT, SAVEPOINT, RELEASE, ROLLBACK, PRAGMA. */
  control: number;
  total: number;
  /**
   * Times the sandbox waited on the database server: statements sent together in one write (a
   * pipeline) are one. Null on SQLite, which runs in the sandbox's process.
   */
  roundTrips: number | null;
  /** The SQL of each statement run, in order (the first line of it). */
  log: string[];
}

export function kindOf(sql: string): StatementKind {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "";
  if (word === "SELECT" || word === "WITH") return "read";
  if (word === "INSERT" || word === "UPDATE" || word === "DELETE" || word === "REPLACE") return "write";
  return "control";
}

/** Told of every statement PostgreSQL is sent, and of every round trip. */
export interface StatementTrace {
  /**
   * Statements sent together, in order: a round trip of their own (`waits`), or joining statements
   * already on their way on the same connection (a pipeline: no wait of its own).
   */
  sent(statements: readonly string[], waits: boolean): void;
}

/**
 * A running count: statements noted one by one (SQLite) or by round trip (PostgreSQL, as its
 * {@link StatementTrace}).
 *
 * @example const tally = new StatementTally(true); await openPostgres(url, { trace: tally }); tally.take()
 */
export class StatementTally implements StatementTrace {
  private count: StatementCount;

  /** `roundTrips`: whether this database has them (PostgreSQL), else the count's roundTrips is null. */
  constructor(private readonly roundTrips: boolean) {
    this.count = this.empty();
  }

  private empty(): StatementCount {
    return { read: 0, write: 0, control: 0, total: 0, roundTrips: this.roundTrips ? 0 : null, log: [] };
  }

  note(sql: string): void {
    this.count[kindOf(sql)]++;
    this.count.total++;
    this.count.log.push(sql.trim().split("\n")[0]!);
  }

  sent(statements: readonly string[], waits: boolean): void {
    if (waits && this.count.roundTrips !== null) this.count.roundTrips++;
    for (const sql of statements) this.note(sql);
  }

  /** The count since the last take(), and starts a new one. */
  take(): StatementCount {
    const taken = this.count;
    this.count = this.empty();
    return taken;
  }
}
