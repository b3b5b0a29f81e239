/**
 * The storage contract over a bun:sqlite connection the app was handed directly (while callers
 * still open the connection themselves): one SqliteDatabase per connection, shared by everyone
 * who asks, so units of work on it take turns. A SqliteDatabase is returned as it is.
 */
import type { Database as BunDatabase } from "bun:sqlite";
import { SqliteDatabase } from "./database";

const shared = new WeakMap<BunDatabase, SqliteDatabase>();

export function storageOf(db: BunDatabase | SqliteDatabase): SqliteDatabase {
  if (db instanceof SqliteDatabase) return db;
  let storage = shared.get(db);
  if (!storage) {
    storage = new SqliteDatabase(db);
    shared.set(db, storage);
  }
  return storage;
}
