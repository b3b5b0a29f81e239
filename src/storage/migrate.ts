/**
 * The one migration runner of both dialects. Each dialect hands it a MigrationTarget (its
 * adapter: src/storage/sqlite/migrate.ts, src/storage/postgres/migrate.ts) and its list of
 * migrations; the runner gives both the same guarantees:
 *
 * - every migration is recorded in schema_migrations (version, name, applied_at UTC);
 * - pending migrations are applied in version order, all in one transaction, so a process killed
 *   half-way leaves nothing (DDL is transactional on both dialects);
 * - the transaction is exclusive among migrating processes (PostgreSQL: an advisory lock; SQLite:
 *   BEGIN IMMEDIATE, the file's write lock), so processes starting together on one new database
 *   apply the schema once and the others find the work done;
 * - a database holding a migration this build does not know (set up by a newer sandbox) is
 *   refused before anything is applied.
 */
import { sql, type RunResult, type Sql } from "./database";

/** One versioned SQL file (NNN_name.sql), imported as text so the binary embeds it. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The statements a migration runs: its script and the bookkeeping around it. */
export interface MigrationSession {
  /** Runs several statements at once (a migration file). */
  script(text: string): Promise<void>;
  all<T>(query: Sql): Promise<T[]>;
  run(query: Sql): Promise<RunResult>;
}

/** What a dialect gives the runner: one transaction no other migrating process runs beside. */
export interface MigrationTarget {
  /** Runs `work` in that transaction: committed when it resolves, rolled back when it throws. */
  exclusive<T>(work: (session: MigrationSession) => Promise<T>): Promise<T>;
}

const SCHEMA_MIGRATIONS =
  "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)";

/** The migrations by ascending version; a version listed twice is a programming error. */
function inOrder(migrations: readonly Migration[]): Migration[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((migration, index) => {
    if (index > 0 && sorted[index - 1]!.version === migration.version) {
      throw new Error(`two migrations have version ${migration.version}: expected one file per version`);
    }
  });
  return sorted;
}

/**
 * Applies the pending migrations and returns the versions it applied (empty when nothing was
 * pending, or another process applied them first). Throws, applying nothing, when the database
 * has a migration not in `migrations`.
 *
 * @example
 *   await runMigrations(sqliteMigrationTarget(connection), SQLITE_MIGRATIONS);
 */
export async function runMigrations(target: MigrationTarget, migrations: readonly Migration[]): Promise<number[]> {
  const ordered = inOrder(migrations);
  return target.exclusive(async (session) => {
    await session.script(SCHEMA_MIGRATIONS);
    const rows = await session.all<{ version: number }>(sql`SELECT version FROM schema_migrations ORDER BY version`);
    const applied = new Set(rows.map((row) => row.version));
    const known = new Set(ordered.map((migration) => migration.version));
    const unknown = [...applied].filter((version) => !known.has(version));
    if (unknown.length > 0) {
      throw new Error(
        `the database has migrations this sandbox does not know (${unknown.join(", ")}): ` +
          "it was set up by a newer paysandbox; run that version, or point --db at another database",
      );
    }
    const appliedAt = new Date().toISOString().replace("T", " ").slice(0, 19);
    const done: number[] = [];
    for (const migration of ordered) {
      if (applied.has(migration.version)) continue;
      await session.script(migration.sql);
      await session.run(sql`
        INSERT INTO schema_migrations (version, name, applied_at)
        VALUES (${migration.version}, ${migration.name}, ${appliedAt})`);
      done.push(migration.version);
    }
    return done;
  });
}
