import type { Database, Statement } from "bun:sqlite";
import { StatementTally, type StatementCount } from "../statement-count";

export type { StatementCount } from "../statement-count";

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
  const tally = new StatementTally(false);
  const seen = new WeakSet<object>();
  const note = (sql: string) => tally.note(sql);
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
  return { take: (): StatementCount => tally.take() };
}
