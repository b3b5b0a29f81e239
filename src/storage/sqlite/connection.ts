import type { Database as BunDatabase } from "bun:sqlite";
import type { Database } from "../database";
import { SqliteDatabase } from "./database";

/**
 * The bun:sqlite connection under a SQLite storage Database (AppDeps.sqlite: for tests and tools
 * that look at the file directly; no module of the app runs statements on it).
 */
export function connectionOf(db: Database): BunDatabase {
  if (!(db instanceof SqliteDatabase)) throw new Error("this module still needs the SQLite database");
  return db.raw;
}
