import type { Database as BunDatabase } from "bun:sqlite";
import type { Database } from "../database";
import { SqliteDatabase, sqliteDatabaseOf } from "./database";

/**
 * Transitional, while the last services move onto the storage Database: the bun:sqlite connection
 * under a SQLite storage Database, for the modules that still run their own statements on it
 * (those on SQL_NOT_YET_IN_STORAGE in .dependency-cruiser.cjs). Goes away with the last of them.
 */
export function connectionOf(db: Database): BunDatabase {
  if (!(db instanceof SqliteDatabase)) throw new Error("this module still needs the SQLite database");
  return db.raw;
}

/** Transitional (see connectionOf): the storage Database around a bun:sqlite connection. */
export function storageOf(raw: BunDatabase): SqliteDatabase {
  const db = sqliteDatabaseOf(raw);
  if (!db) throw new Error("this connection was not opened through the storage layer");
  return db;
}
