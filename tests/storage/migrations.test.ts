/**
 * The migration runner (src/storage/migrate.ts) on SQLite: the same guarantees PostgreSQL's
 * adapter is held to in tests/storage/postgres.test.ts (recorded, in order, once however many
 * processes start together, all or nothing, a newer database refused), and the server refusing
 * to start on a file set up by a newer sandbox.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database as BunDatabase } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "../../src/storage/database";
import { openSqlite } from "../../src/storage/sqlite/database";
import { migrateSqlite } from "../../src/storage/sqlite/migrate";
import { SQLITE_MIGRATIONS } from "../../src/storage/sqlite/migrations/index";
import { FROM_SOURCES, readLines, runToExit } from "../support/process";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-migrations-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(dir, `db-${++files}.sqlite`);

const NEWER = "the database has migrations this sandbox does not know (999): it was set up by a newer paysandbox";
const tables = (raw: BunDatabase) =>
  raw
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((row) => row.name);

describe("SQLite migrations", () => {
  test("a new file is migrated once, each migration recorded in order; reopening applies nothing", async () => {
    const path = freshPath();
    const db = await openSqlite(path);
    const recorded = await db.all<{ version: number; name: string; applied_at: string }>(
      sql`SELECT version, name, applied_at FROM schema_migrations ORDER BY rowid`,
    );
    expect(recorded.map(({ version, name }) => ({ version, name }))).toEqual(
      SQLITE_MIGRATIONS.map(({ version, name }) => ({ version, name })),
    );
    for (const row of recorded) expect(row.applied_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(await migrateSqlite(db.raw)).toEqual([]);
    await db.close();
    const again = await openSqlite(path);
    expect(await again.all(sql`SELECT COUNT(*) AS n FROM schema_migrations`)).toEqual([
      { n: SQLITE_MIGRATIONS.length },
    ]);
    await again.close();
  });

  test("migrations listed out of order are applied in version order", async () => {
    const raw = new BunDatabase(":memory:", { strict: true });
    const later = { version: 2, name: "002_later", sql: "ALTER TABLE things ADD COLUMN label TEXT" };
    const first = { version: 1, name: "001_first", sql: "CREATE TABLE things (id TEXT PRIMARY KEY)" };
    expect(await migrateSqlite(raw, [later, first])).toEqual([1, 2]);
    expect(raw.query("SELECT version FROM schema_migrations ORDER BY rowid").all()).toEqual([
      { version: 1 },
      { version: 2 },
    ]);
    raw.close();
  });

  test("a migration that fails leaves nothing of the run: no table, no record", async () => {
    const raw = new BunDatabase(":memory:", { strict: true });
    const broken = { version: 999, name: "999_broken", sql: "CREATE TABLE broken (" };
    expect(migrateSqlite(raw, [...SQLITE_MIGRATIONS, broken])).rejects.toThrow();
    expect(tables(raw)).toEqual([]);
    raw.close();
  });

  test("a file migrated by a newer sandbox is refused before anything is applied", async () => {
    const path = freshPath();
    const raw = new BunDatabase(path, { create: true, strict: true });
    await migrateSqlite(raw, SQLITE_MIGRATIONS.slice(0, -1));
    raw.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future', 'x')");
    const last = SQLITE_MIGRATIONS.at(-1)!;
    expect(migrateSqlite(raw)).rejects.toThrow(NEWER);
    expect(raw.query("SELECT version FROM schema_migrations WHERE version = ?").all(last.version)).toEqual([]);
    raw.close();
    expect(openSqlite(path)).rejects.toThrow(NEWER);
  });

  test("the server refuses to start on a file set up by a newer sandbox, saying why", async () => {
    const path = freshPath();
    await (await openSqlite(path)).close();
    const raw = new BunDatabase(path, { strict: true });
    raw.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future', 'x')");
    raw.close();
    const started = await runToExit([...FROM_SOURCES, "--db", path, "--port", "0"]);
    expect(started.code).toBe(1);
    expect(started.stderr).toBe(
      `paysandbox: cannot open the database at ${path}: ${NEWER}; run that version, or point --db at another database\n`,
    );
  });

  test("three processes opening one new file at once apply the schema once, without an error", async () => {
    const path = freshPath();
    const child = resolve(import.meta.dir, "migrate-child.ts");
    const children = [1, 2, 3].map(() =>
      Bun.spawn([process.execPath, child, path], { stdin: "pipe", stdout: "pipe", stderr: "pipe" }),
    );
    try {
      const outputs = children.map((proc) => readLines(proc.stdout));
      for (const [index, output] of outputs.entries()) {
        const line = await output.next();
        // A child that never says "ready" shows why: its exit code and its stderr.
        if (line !== "ready") {
          const proc = children[index]!;
          const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
          expect({ line, code, stderr }).toEqual({ line: "ready", code: 0, stderr: "" });
        }
      }
      for (const proc of children) {
        await proc.stdin.write("go\n");
        await proc.stdin.flush();
      }
      const results = await Promise.all(
        children.map(async (proc, index) => {
          const line = await outputs[index]!.next();
          const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
          return { code, stderr, line };
        }),
      );
      for (const { code, stderr } of results) expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const applied = results.map(({ line }) => JSON.parse(line ?? "null").applied).sort();
      expect(applied).toEqual([[], [], SQLITE_MIGRATIONS.map((migration) => migration.version)]);
    } finally {
      for (const proc of children) proc.kill();
    }
    const db = await openSqlite(path);
    expect(await db.all(sql`SELECT COUNT(*) AS n FROM schema_migrations`)).toEqual([{ n: SQLITE_MIGRATIONS.length }]);
    await db.close();
  }, 30_000);
});
