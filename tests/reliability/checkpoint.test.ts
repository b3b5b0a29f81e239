/**
 * WAL checkpoints on their own thread (src/storage/sqlite/checkpointer.ts, the server's SQLite file):
 * the thread starts only after enough group-commit batches, then folds the WAL back into the
 * database file while the main connection keeps writing, and the main connection no longer
 * checkpoints inside its COMMITs. Nothing is lost: every committed row is there after close, and
 * the WAL is emptied. (The SIGKILL test, tests/reliability/crash.test.ts, runs the server with it.)
 * SQLite-only (npm test's PostgreSQL pass leaves it out).
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../../src/storage/sqlite/database";
import { START_AFTER_BATCHES } from "../../src/storage/sqlite/checkpointer";
import { sql } from "../../src/storage/database";
import { memoryLogger } from "../../src/lib/logger";

const dir = mkdtempSync(join(tmpdir(), "paysandbox-checkpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One group-commit batch: a write in its own turn of the event loop, awaited until committed. */
async function batch(db: Awaited<ReturnType<typeof openSqlite>>, n: number) {
  await db.run(sql`INSERT INTO notes (n, body) VALUES (${n}, ${"x".repeat(500)})`);
  await db.settled();
}

test("after enough batches a thread checkpoints the WAL while writes go on; close keeps every row and empties the WAL", async () => {
  const path = join(dir, "background.sqlite");
  const log = memoryLogger();
  const db = await openSqlite(path, { groupCommit: true, backgroundCheckpoint: true, log });
  db.raw.exec("CREATE TABLE notes (n INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const checkpointer = db.checkpointer!;
  expect(checkpointer).toBeDefined();
  const autocheckpoint = () =>
    (db.raw.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

  let n = 0;
  while (db.batches < START_AFTER_BATCHES - 1) await batch(db, n++);
  // A sandbox that has written little never starts the thread, and SQLite checkpoints as usual.
  expect(checkpointer.stats.started).toBe(false);
  expect(autocheckpoint()).toBe(1000);

  const deadline = Date.now() + 20_000;
  while (checkpointer.stats.checkpoints < 2) {
    if (Date.now() > deadline)
      throw new Error(
        `no background checkpoint after ${db.batches} batches: ${JSON.stringify({ ...checkpointer.stats, log: log.lines })}`,
      );
    await batch(db, n++);
  }
  expect(checkpointer.stats.started).toBe(true);
  // The main connection checkpoints only as a backstop for a WAL far larger than the default.
  expect(autocheckpoint()).toBeGreaterThan(1000);

  // Another connection sees every committed row while the thread works.
  const reader = new Database(path, { readonly: true });
  expect((reader.query("SELECT COUNT(*) AS c FROM notes").get() as { c: number }).c).toBe(n);
  reader.close();

  await db.close();
  expect(log.lines.filter((line) => /checkpoint/.test(line))).toEqual([]);
  expect(!existsSync(`${path}-wal`) || statSync(`${path}-wal`).size === 0).toBe(true);
  const reopened = new Database(path, { readonly: true });
  expect(reopened.query("SELECT COUNT(*) AS c, MAX(n) AS top FROM notes").get() as { c: number; top: number }).toEqual({
    c: n,
    top: n - 1,
  });
  reopened.close();
}, 60_000);

test("without the option (in-process tests, tools) or for :memory: there is no thread", async () => {
  const plain = await openSqlite(join(dir, "plain.sqlite"), { groupCommit: true });
  expect(plain.checkpointer).toBeUndefined();
  const memory = await openSqlite(":memory:", { groupCommit: true, backgroundCheckpoint: true });
  expect(memory.checkpointer).toBeUndefined();
  void plain.close();
  void memory.close();
});
