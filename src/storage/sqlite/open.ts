import type { Database } from "bun:sqlite";

/**
 * The pragmas the sandbox relies on, which hold per connection (not in the file). busy_timeout
 * comes first: a second process opening the same new file then waits for the first's lock
 * instead of failing on journal_mode or the migrations' BEGIN IMMEDIATE.
 */
export function configure(db: Database): void {
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
}

/** Closes the database after folding the WAL back into the main file. */
export function closeDatabase(db: Database): void {
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}
