/**
 * The SQLite dialect of the storage contract: queries from the `sql` tag, units of work that
 * commit or roll back whole, turns taken on the one connection however long a unit awaits, and
 * group commit (concurrent units share one COMMIT; settled() waits for it).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database as BunDatabase } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderSql, sql, UniqueViolation } from "../../src/storage/database";
import { SqliteDatabase } from "../../src/storage/sqlite/database";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fresh(groupCommit = false): { db: SqliteDatabase; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "paysandbox-sqlite-"));
  dirs.push(dir);
  const path = join(dir, "db.sqlite");
  const raw = new BunDatabase(path, { create: true, strict: true });
  raw.exec("PRAGMA journal_mode = WAL");
  raw.exec("CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER NOT NULL)");
  return { db: new SqliteDatabase(raw, { groupCommit }), path };
}

const count = (path: string) => {
  const other = new BunDatabase(path, { readonly: true });
  try {
    return (other.query("SELECT COUNT(*) AS n FROM things").get() as { n: number }).n;
  } finally {
    other.close();
  }
};

describe("the sql tag", () => {
  test("renders parameters and nested fragments for each dialect", () => {
    const where = sql`n > ${5}`;
    const query = sql`SELECT * FROM ${sql.raw("things")} WHERE id = ${"a"} AND ${where} AND id IN (${sql.join([sql`${"b"}`, sql`${"c"}`])})`;
    expect(renderSql(query, "sqlite")).toEqual({
      text: "SELECT * FROM things WHERE id = +? AND n > +? AND id IN (+?, +?)",
      values: ["a", 5, "b", "c"],
    });
    expect(renderSql(query, "postgres").text).toBe("SELECT * FROM things WHERE id = $1 AND n > $2 AND id IN ($3, $4)");
  });

  test("SQLite's +? placeholder means what a bare ? means: the same value, compared and stored the same", async () => {
    const { db } = fresh();
    const raw = db.raw;
    raw.exec("CREATE TABLE typed (t TEXT, i INTEGER, r REAL, b BLOB, a)");
    const values = ["1", 1, 1.5, "", "x", null, "2026-11-21 15:40:00", -3];
    const texts = [
      "SELECT PLACEHOLDER AS v, typeof(PLACEHOLDER) AS type",
      "SELECT '1' = PLACEHOLDER AS text_eq, 1 = PLACEHOLDER AS int_eq, PLACEHOLDER IS NULL AS is_null",
      "SELECT PLACEHOLDER || 'z' AS cat, PLACEHOLDER + 0 AS plus",
    ];
    const both = (text: string, args: unknown[]) =>
      expect(raw.query(text.replaceAll("PLACEHOLDER", "+?")).all(...(args as never[]))).toEqual(
        raw.query(text.replaceAll("PLACEHOLDER", "?")).all(...(args as never[])),
      );
    for (const limit of [0, 2, -1]) {
      both("SELECT value FROM json_each('[1,2,3,4]') ORDER BY value LIMIT PLACEHOLDER OFFSET PLACEHOLDER", [limit, 1]);
    }
    for (const value of values) {
      for (const text of texts) both(text, Array(text.split("PLACEHOLDER").length - 1).fill(value));
      // Stored through columns of each affinity, and found again by comparison with the column.
      raw.exec("DELETE FROM typed");
      raw.query("INSERT INTO typed VALUES (+?, +?, +?, +?, +?)").run(value, value, value, value, value);
      raw.query("INSERT INTO typed VALUES (?, ?, ?, ?, ?)").run(value, value, value, value, value);
      const [plus, bare] = raw.query("SELECT t, typeof(t), i, typeof(i), r, typeof(r), b, a FROM typed").values();
      expect(plus).toEqual(bare!);
      for (const column of ["t", "i", "r", "a"]) {
        const found = (p: string) =>
          raw.query(`SELECT count(*) AS n FROM typed WHERE ${column} = ${p}`).get(value as never) as { n: number };
        expect(found("+?")).toEqual(found("?"));
      }
    }
  });

  test("refuses a parameter that is neither a string, a number nor null", () => {
    expect(() => renderSql(sql`SELECT ${{}}`, "sqlite")).toThrow("a SQL parameter must be");
  });
});

describe("SQLite units of work", () => {
  test("runs statements and reports changes", async () => {
    const { db } = fresh();
    expect(await db.run(sql`INSERT INTO things (id, n) VALUES (${"a"}, ${1}), (${"b"}, ${2})`)).toEqual({ changes: 2 });
    expect(await db.all(sql`SELECT id, n FROM things ORDER BY id`)).toEqual([
      { id: "a", n: 1 },
      { id: "b", n: 2 },
    ]);
    expect(await db.get(sql`SELECT id FROM things WHERE id = ${"z"}`)).toBeUndefined();
  });

  test("a unit of work that throws writes nothing; a nested one that throws undoes only itself", async () => {
    const { db } = fresh();
    expect(
      db.transaction(async (tx) => {
        await tx.run(sql`INSERT INTO things (id, n) VALUES (${"a"}, 1)`);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await db.all(sql`SELECT id FROM things`)).toEqual([]);

    await db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO things (id, n) VALUES (${"a"}, 1)`);
      expect(
        tx.transaction(async (inner) => {
          await inner.run(sql`INSERT INTO things (id, n) VALUES (${"b"}, 2)`);
          throw new Error("inner");
        }),
      ).rejects.toThrow("inner");
    });
    expect(await db.all(sql`SELECT id FROM things`)).toEqual([{ id: "a" }]);
  });

  test("a unique-constraint failure is a UniqueViolation", async () => {
    const { db } = fresh();
    await db.run(sql`INSERT INTO things (id, n) VALUES (${"a"}, 1)`);
    expect(db.run(sql`INSERT INTO things (id, n) VALUES (${"a"}, 2)`)).rejects.toBeInstanceOf(UniqueViolation);
  });

  test("a unit that awaits keeps the connection: others wait, and never see its uncommitted rows", async () => {
    const { db } = fresh();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO things (id, n) VALUES (${"slow"}, 1)`);
      await gate;
      throw new Error("changed its mind");
    });
    const seen = db.all<{ id: string }>(sql`SELECT id FROM things`);
    const other = db.transaction((tx) => tx.run(sql`INSERT INTO things (id, n) VALUES (${"other"}, 2)`));
    await Bun.sleep(0);
    release();
    expect(slow).rejects.toThrow("changed its mind");
    expect(await seen).toEqual([]);
    await other;
    expect(await db.all(sql`SELECT id FROM things`)).toEqual([{ id: "other" }]);
  });

  test("a statement on a unit of work that has ended is refused", async () => {
    const { db } = fresh();
    let kept!: Parameters<Parameters<typeof db.transaction>[0]>[0];
    await db.transaction(async (tx) => {
      kept = tx;
    });
    expect(() => kept.run(sql`DELETE FROM things`)).toThrow("already ended");
  });
});

describe("SQLite group commit", () => {
  test("concurrent units share one COMMIT, and settled() resolves once their rows are on disk", async () => {
    const { db, path } = fresh(true);
    const units = Array.from({ length: 5 }, (_, i) =>
      db.transaction((tx) => tx.run(sql`INSERT INTO things (id, n) VALUES (${`t${i}`}, ${i})`)),
    );
    await Promise.all(units);
    expect(count(path)).toBe(0);
    await db.settled();
    expect(count(path)).toBe(5);
    expect(db.batches).toBe(1);
  });

  test("a failing unit inside a batch rolls back alone", async () => {
    const { db, path } = fresh(true);
    const ok = db.transaction((tx) => tx.run(sql`INSERT INTO things (id, n) VALUES (${"ok"}, 1)`));
    const bad = db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO things (id, n) VALUES (${"bad"}, 1)`);
      throw new Error("no");
    });
    await ok;
    expect(bad).rejects.toThrow("no");
    await db.settled();
    expect(count(path)).toBe(1);
  });
});

describe("the mark of other connections' commits", () => {
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  test("another connection's commit changes the mark from the next turn of the event loop on", async () => {
    const { db, path } = fresh();
    const before = db.foreignCommitMark();
    const other = new BunDatabase(path);
    try {
      other.run("INSERT INTO things (id, n) VALUES ('elsewhere', 1)");
      // The requests of one turn arrived before its first read: they share that read's mark.
      expect(db.foreignCommitMark()).toBe(before);
      await nextTurn();
      const after = db.foreignCommitMark();
      expect(after).not.toBe(before);
      await nextTurn();
      expect(db.foreignCommitMark()).toBe(after); // nothing committed elsewhere meanwhile
    } finally {
      other.close();
    }
  });

  test("this connection's own commits leave the mark as it was", async () => {
    const { db } = fresh();
    const before = db.foreignCommitMark();
    await db.transaction((tx) => tx.run(sql`INSERT INTO things (id, n) VALUES (${"own"}, 1)`));
    await nextTurn();
    expect(db.foreignCommitMark()).toBe(before);
  });
});
