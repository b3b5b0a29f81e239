import type { Database, Statement } from "bun:sqlite";

/** What a counted statement did, by its first keyword. */
export type StatementKind = "read" | "write" | "control";

export interface StatementCount {
  read: number;
  write: number;
  /** BEGIN, COMMIT, SAVEPOINT, RELEASE, ROLLBACK, PRAGMA. */
  control: number;
  total: number;
  /** The SQL of each statement run, in order (the first line of it). */
  log: string[];
}

function kindOf(sql: string): StatementKind {
  const word = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "";
  if (word === "SELECT" || word === "WITH") return "read";
  if (word === "INSERT" || word === "UPDATE" || word === "DELETE" || word === "REPLACE") return "write";
  return "control";
}

const RUNNERS = ["run", "get", "all", "values", "iterate"] as const;

/**
 * Counts every SQL statement a database runs through bun:sqlite from now on (the bench's "SQL
 * statements per /charge", and the test that keeps that number from creeping up). Install it
 * before the services are built: statements they prepare earlier are not seen. Triggers run inside
 * the statement that fires them and are not counted apart.
 *
 * @example const counter = countStatements(db); app.handle(req); counter.take().total
 */
export function countStatements(db: Database): { take(): StatementCount } {
  let count: StatementCount = { read: 0, write: 0, control: 0, total: 0, log: [] };
  const seen = new WeakSet<object>();
  const note = (sql: string) => {
    count[kindOf(sql)]++;
    count.total++;
    count.log.push(sql.trim().split("\n")[0]!);
  };
  const wrap = <S extends Statement>(statement: S, sql: string): S => {
    if (seen.has(statement)) return statement;
    seen.add(statement);
    const target = statement as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of RUNNERS) {
      const original = target[name]!;
      target[name] = (...args: unknown[]) => {
        note(sql);
        return original.apply(statement, args);
      };
    }
    return statement;
  };
  const target = db as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ["query", "prepare"] as const) {
    const original = target[name]!.bind(db);
    target[name] = (sql: unknown, ...rest: unknown[]) => wrap(original(sql, ...rest) as Statement, String(sql));
  }
  for (const name of ["run", "exec"] as const) {
    const original = target[name]!.bind(db);
    target[name] = (sql: unknown, ...rest: unknown[]) => {
      note(String(sql));
      return original(sql, ...rest);
    };
  }
  return {
    /** The count since the last take(), and starts a new one. */
    take() {
      const taken = count;
      count = { read: 0, write: 0, control: 0, total: 0, log: [] };
      return taken;
    },
  };
}
