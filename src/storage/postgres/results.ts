/** What Bun's PostgreSQL client answers, made to look like SQLite's rows and errors. */
import { SQL } from "bun";
import { ForeignKeyViolation, UniqueViolation } from "../database";

/** PostgreSQL type OIDs whose text form Bun hands back as strings, and booleans. */
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

export type ResultArray = Record<string, unknown>[] & SQL.ResultMetadata;

/** Plain row objects with int8/numeric as numbers and booleans as 0/1, like SQLite's. */
export function rowsOf<T>(result: ResultArray): T[] {
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

/** A unique or foreign-key violation as the storage API's own error; anything else as it is. */
export function translate(error: unknown): unknown {
  if (error instanceof SQL.PostgresError && error.errno === "23505") {
    // The constraint's name, never error.detail: that quotes the key, which may be a secret's hash.
    return new UniqueViolation(`unique constraint ${error.constraint ?? "(unnamed)"} violated`, { cause: error });
  }
  if (error instanceof SQL.PostgresError && error.errno === "23503") {
    return new ForeignKeyViolation(`foreign key ${error.constraint ?? "(unnamed)"} violated`);
  }
  return error;
}
