/**
 * The database the app suites run on, and reading it directly from a test in a way that works on
 * both dialects.
 *
 * `PAYSANDBOX_TEST_DB=postgres` runs every suite built on setup() (tests/support/app.ts) against a
 * fresh PostgreSQL database each (a copy of a migrated template on the shared test server,
 * tests/support/postgres.ts); unset or `sqlite`, each gets its own SQLite `:memory:` database (a
 * copy of one migrated once per test file: migrating takes ~6 ms, a copy ~0.05 ms).
 * `npm test` runs the API, money-movement, webhook, reliability and security suites both ways.
 *
 * A test that checks what was stored reads through the storage Database with the `sql` tag (the
 * same portable SQL the repositories write), never through the bun:sqlite connection:
 * @example
 * expect(await countRows(ctx.deps.db, "transactions")).toBe(0);
 * const rows = await ctx.deps.db.all<{ id: string }>(sql`SELECT id FROM payment_methods`);
 */
import { sql, type Database, type Executor, type Sql } from "../../src/storage/database";
import { openPostgres } from "../../src/storage/postgres/database";
import { Database as SqliteConnection } from "bun:sqlite";
import { openSqlite, SqliteDatabase } from "../../src/storage/sqlite/database";
import { migrateSqlite } from "../../src/storage/sqlite/migrate";
import { configure } from "../../src/storage/sqlite/open";
import { migratedPostgresDatabase } from "./postgres";

export type TestDialect = "sqlite" | "postgres";

function dialectFromEnv(): TestDialect {
  const value = (process.env.PAYSANDBOX_TEST_DB ?? "").trim().toLowerCase();
  if (value === "" || value === "sqlite") return "sqlite";
  if (value === "postgres" || value === "postgresql") return "postgres";
  throw new Error(`PAYSANDBOX_TEST_DB must be "sqlite" or "postgres", got ${JSON.stringify(value)}`);
}

/** The dialect this test process runs the app suites on. */
export const TEST_DIALECT: TestDialect = dialectFromEnv();

/** True when the suites run on PostgreSQL (for the few checks that only mean something on one dialect). */
export const onPostgres = TEST_DIALECT === "postgres";

/**
 * A new, empty-but-migrated database of the test dialect. PostgreSQL pools close connections idle
 * for a second, so the many databases of a test file never hold the server's connections.
 */
export async function openTestDatabase(label = "app"): Promise<Database> {
  if (TEST_DIALECT === "sqlite") return await migratedSqliteCopy();
  return openPostgres(await migratedPostgresDatabase(label), { max: 10, idleTimeout: 1 });
}

let migratedSqliteImage: Uint8Array | undefined;

/**
 * A `:memory:` database loaded from the image of one migrated as the sandbox migrates a new file
 * (`openSqlite`), with the connection pragmas set again; `migrateSqlite` then finds nothing to apply.
 */
async function migratedSqliteCopy(): Promise<SqliteDatabase> {
  if (!migratedSqliteImage) {
    const migrated = await openSqlite(":memory:");
    migratedSqliteImage = migrated.raw.serialize();
    migrated.raw.close();
  }
  const raw = SqliteConnection.deserialize(migratedSqliteImage, { strict: true });
  configure(raw);
  await migrateSqlite(raw);
  return new SqliteDatabase(raw);
}

/** The number of rows in a table (a fixed table name from the test, never input). */
export async function countRows(db: Executor, table: string): Promise<number> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
  const row = await db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${sql.raw(table)}`);
  return row!.n;
}

/** Every table of the app's schema (not the migrations' own bookkeeping). */
export async function tableNames(db: Executor): Promise<string[]> {
  const rows =
    db.dialect === "sqlite"
      ? await db.all<{ name: string }>(
          sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
        )
      : await db.all<{ name: string }>(
          sql`SELECT table_name AS name FROM information_schema.tables
              WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
        );
  return rows.map((row) => row.name).filter((name) => name !== "schema_migrations");
}

/** Every stored row of every table as JSON text, for checks that a secret was stored nowhere. */
export async function dumpAllTables(db: Executor): Promise<string> {
  const parts: string[] = [];
  for (const name of await tableNames(db)) {
    parts.push(`${name}: ${JSON.stringify(await db.all(sql`SELECT * FROM ${sql.raw(`"${name}"`)}`))}`);
  }
  return parts.join("\n");
}

/**
 * A fingerprint of what every table holds, which changes when any row is inserted or deleted and,
 * for tables with updated_at (and on PostgreSQL for every table), when one is updated: compare it
 * before and after a refused request to prove nothing was written. SQLite: COUNT, MAX(rowid) and
 * MAX(updated_at); PostgreSQL: COUNT and the newest row version (MAX(xmin)). Returns the reader,
 * its one query built once.
 * @example
 * const marks = await writeMarker(ctx.deps.db);
 * const before = await marks();
 */
export async function writeMarker(db: Executor): Promise<() => Promise<string>> {
  const parts: Sql[] = [];
  for (const name of await tableNames(db)) {
    // Names from the catalogue, inlined: PostgreSQL cannot type a bare parameter in a UNION.
    const table = sql.raw(`"${name}"`);
    const label = sql.raw(`'${name}'`);
    if (db.dialect === "postgres") {
      parts.push(sql`SELECT ${label} AS t, COUNT(*) AS n, MAX(xmin::text::bigint) AS r, NULL AS u FROM ${table}`);
    } else {
      const columns = await db.all<{ name: string }>(sql`SELECT name FROM pragma_table_info(${name})`);
      const updated = sql.raw(columns.some((column) => column.name === "updated_at") ? "MAX(updated_at)" : "NULL");
      parts.push(sql`SELECT ${label} AS t, COUNT(*) AS n, MAX(rowid) AS r, ${updated} AS u FROM ${table}`);
    }
  }
  const query = sql.join(parts, " UNION ALL ");
  return async () => JSON.stringify(await db.all(query));
}

/**
 * Runs `first` in a unit of work opened by `begin` and keeps that unit open (uncommitted) once it
 * ran: what another unit does meanwhile sees it as PostgreSQL would a concurrent request. Answers
 * `first`'s result and `commit()`, which lets the unit end and waits for it. A `first` that throws
 * ends the unit, and its error is thrown here.
 *
 * @example
 * const open = await holdOpen((work) => db.transaction(work), (tx) => insertSomething(tx));
 * const second = db.transaction((tx) => sameCheck(tx)); // may wait for the first's lock
 * await open.commit();
 */
export async function holdOpen<Tx, R>(
  begin: (work: (tx: Tx) => Promise<void>) => Promise<unknown>,
  first: (tx: Tx) => Promise<R>,
): Promise<{ result: R; commit(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let ran!: (result: R) => void;
  const firstRan = new Promise<R>((resolve) => (ran = resolve));
  const unit = begin(async (tx) => {
    ran(await first(tx));
    await held;
  });
  const result = await Promise.race([firstRan, unit.then(() => firstRan)]);
  return {
    result,
    async commit() {
      release();
      await unit;
    },
  };
}
