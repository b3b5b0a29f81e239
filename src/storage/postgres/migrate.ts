/**
 * PostgreSQL's adapter for the migration runner (src/storage/migrate.ts): the run is one
 * transaction that first takes a transaction-level advisory lock, so of several sandbox processes
 * starting together on one database exactly one migrates and the others wait, then find the work
 * done.
 */
import { sql } from "../database";
import { runMigrations, type Migration, type MigrationTarget } from "../migrate";
import type { PostgresDatabase } from "./database";
import { POSTGRES_MIGRATIONS } from "./migrations/index";

/** The advisory lock key of paysandbox's migrations (any fixed 64-bit number no other tool uses). */
export const MIGRATION_LOCK_KEY = 7_290_017_001;

function postgresTarget(db: PostgresDatabase): MigrationTarget {
  return {
    exclusive: (work) =>
      db.transaction(async (tx) => {
        await tx.run(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
        return work(tx);
      }),
  };
}

/** Runs the pending migrations; returns the versions it applied. Refuses a database migrated by a newer sandbox. */
export function migratePostgres(
  db: PostgresDatabase,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  return runMigrations(postgresTarget(db), migrations);
}
