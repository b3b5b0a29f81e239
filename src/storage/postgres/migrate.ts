/**
 * Applies the PostgreSQL migrations exactly once, however many sandbox processes start together
 * on one database: each process takes the same transaction-level advisory lock before it reads
 * schema_migrations, so the others wait, then find the work done. Everything a run applies is
 * one transaction (PostgreSQL's DDL is transactional): a process killed half-way leaves nothing.
 */
import { sql } from "../database";
import type { PostgresDatabase } from "./database";
import { POSTGRES_MIGRATIONS, type Migration } from "./migrations/index";

/** The advisory lock key of paysandbox's migrations (any fixed 64-bit number no other tool uses). */
export const MIGRATION_LOCK_KEY = 7_290_017_001;

/**
 * Runs the pending migrations and returns the versions it applied (empty when another process
 * did, or nothing was pending). Refuses a database migrated by a newer sandbox.
 */
export async function migratePostgres(
  db: PostgresDatabase,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.run(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.script(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    );
    const rows = await tx.all<{ version: number }>(sql`SELECT version FROM schema_migrations ORDER BY version`);
    const applied = new Set(rows.map((row) => row.version));
    const known = new Set(migrations.map((migration) => migration.version));
    const unknown = [...applied].filter((version) => !known.has(version));
    if (unknown.length > 0) {
      throw new Error(
        `the database has migrations this sandbox does not know (${unknown.join(", ")}): ` +
          "it was set up by a newer paysandbox; run that version, or point --db at another database",
      );
    }
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await tx.script(migration.sql);
      await tx.run(sql`
        INSERT INTO schema_migrations (version, name, applied_at)
        VALUES (${migration.version}, ${migration.name}, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))`);
      done.push(migration.version);
    }
    return done;
  });
}
