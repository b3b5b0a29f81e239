/**
 * SQLite's adapter for the migration runner (src/storage/migrate.ts): the run is one
 * BEGIN IMMEDIATE transaction on the bun:sqlite connection, which holds the file's write lock, so
 * a second process opening the same new file waits (busy_timeout) and then finds the work done.
 */
import type { Database as BunDatabase } from "bun:sqlite";
import { renderSql } from "../database";
import { runMigrations, type Migration, type MigrationSession, type MigrationTarget } from "../migrate";
import { SQLITE_MIGRATIONS } from "./migrations/index";

function sqliteTarget(raw: BunDatabase): MigrationTarget {
  const session: MigrationSession = {
    script: async (text) => {
      raw.exec(text);
    },
    all: async <T>(query: Parameters<MigrationSession["all"]>[0]) => {
      const { text, values } = renderSql(query, "sqlite");
      return raw.query(text).all(...values) as T[];
    },
    run: async (query) => {
      const { text, values } = renderSql(query, "sqlite");
      return { changes: raw.query(text).run(...values).changes };
    },
  };
  return {
    async exclusive(work) {
      raw.exec("BEGIN IMMEDIATE");
      try {
        const result = await work(session);
        raw.exec("COMMIT");
        return result;
      } catch (error) {
        if (raw.inTransaction) raw.exec("ROLLBACK");
        throw error;
      }
    },
  };
}

/** Runs the pending migrations on a connection; returns the versions it applied. Refuses a database migrated by a newer sandbox. */
export function migrateSqlite(
  raw: BunDatabase,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
): Promise<number[]> {
  return runMigrations(sqliteTarget(raw), migrations);
}
