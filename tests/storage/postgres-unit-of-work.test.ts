/**
 * A unit of work on PostgreSQL in few round trips (src/storage/postgres/unit-of-work.ts): BEGIN sent
 * with the first statement (none before a plain read), writes held until the next statement or the
 * end (one statement of independent ones), savepoints sent with what follows them. What must hold whatever is pipelined: a held write that fails fails the
 * whole unit and nothing of it is kept; a savepoint undoes only its own writes, held ones included;
 * a later statement of the unit sees the held write; and a connection is held only from BEGIN on.
 */
import { beforeAll, expect, test } from "bun:test";
import { sql, UniqueViolation, writeBehind, type Database } from "../../src/storage/database";
import { openPostgres } from "../../src/storage/postgres/database";
import { mergeable } from "../../src/storage/postgres/unit-of-work";
import { StatementTally } from "../../src/storage/statement-count";
import { describePostgres, POSTGRES_TIMEOUT_MS, postgresDatabase } from "../support/postgres";

describePostgres("a PostgreSQL unit of work, pipelined", () => {
  let db: Database;
  const tally = new StatementTally(true);
  const ids = async () => (await db.all<{ id: number }>(sql`SELECT id FROM items ORDER BY id`)).map((row) => row.id);

  beforeAll(async () => {
    db = await openPostgres(await postgresDatabase("unit_of_work"), { trace: tally, idleTimeout: 1 });
    await db.run(sql`CREATE TABLE items (id INTEGER PRIMARY KEY)`);
  }, POSTGRES_TIMEOUT_MS);

  test("a read then one held write: two statements, two round trips, no BEGIN or COMMIT", async () => {
    await db.run(sql`DELETE FROM items`);
    tally.take();
    await db.transaction(async (tx) => {
      await tx.get(sql`SELECT COUNT(*) AS n FROM items`);
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${1})`);
    });
    const count = tally.take();
    expect(count.log).toEqual(["SELECT COUNT(*) AS n FROM items", "INSERT INTO items (id) VALUES ($1)"]);
    expect(count.roundTrips).toBe(2);
    expect(await ids()).toEqual([1]);
  });

  test("independent held writes run as one statement; others go between BEGIN and COMMIT", async () => {
    await db.run(sql`DELETE FROM items`);
    tally.take();
    const changes: number[] = [];
    const then = (result: { changes: number }) => void changes.push(result.changes);
    await db.transaction(async (tx) => {
      await tx.get(sql`SELECT COUNT(*) AS n FROM items`);
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${1})`, { independent: true, then });
      await writeBehind(tx, sql`INSERT INTO items (id) SELECT g FROM generate_series(2, 3) AS g`, {
        independent: true,
        then,
      });
    });
    const merged = tally.take();
    expect(merged.log).toEqual(["SELECT COUNT(*) AS n FROM items", expect.stringMatching(/^WITH w0 AS \(INSERT/)]);
    expect(merged.roundTrips).toBe(2);
    expect(changes).toEqual([1, 2]);
    expect(await ids()).toEqual([1, 2, 3]);
    tally.take();
    await db.transaction(async (tx) => {
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${4})`, { independent: true });
      await writeBehind(tx, sql`DELETE FROM items WHERE id = ${4}`); // reads what the first wrote
    });
    expect(tally.take().log).toEqual([
      "BEGIN",
      "INSERT INTO items (id) VALUES ($1)",
      "DELETE FROM items WHERE id = $1",
      "COMMIT",
    ]);
    expect(await ids()).toEqual([1, 2, 3]);
  });

  test("independent writes that change one table's rows twice are never merged: both changes stay", async () => {
    await db.run(sql`CREATE TABLE IF NOT EXISTS pairs (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)`);
    await db.run(sql`DELETE FROM pairs`);
    await db.run(sql`INSERT INTO pairs (id, a, b) VALUES (1, 0, 0)`);
    tally.take();
    await db.transaction(async (tx) => {
      await tx.get(sql`SELECT COUNT(*) AS n FROM items`);
      // Each says it is independent (it sets values only), yet both change row 1: as CTEs of one
      // statement PostgreSQL would keep only one of the two changes.
      await writeBehind(tx, sql`UPDATE pairs SET a = ${1} WHERE id = ${1}`, { independent: true });
      await writeBehind(tx, sql`${sql.raw("UPDATE pairs")} SET b = ${2} WHERE id = ${1}`, { independent: true });
    });
    expect(tally.take().log).toEqual([
      "SELECT COUNT(*) AS n FROM items",
      "BEGIN",
      "UPDATE pairs SET a = $1 WHERE id = $2",
      "UPDATE pairs SET b = $1 WHERE id = $2",
      "COMMIT",
    ]);
    expect(await db.get(sql`SELECT a, b FROM pairs WHERE id = 1`)).toEqual({ a: 1, b: 2 });
  });

  test("a read that locks, and any statement after the first, run inside the transaction", async () => {
    tally.take();
    await db.transaction(async (tx) => {
      await tx.get(sql`SELECT id FROM items WHERE id = ${1} FOR UPDATE`);
    });
    expect(tally.take().log).toEqual(["BEGIN", "SELECT id FROM items WHERE id = $1 FOR UPDATE", "COMMIT"]);
    await db.transaction(async (tx) => {
      await tx.get(sql`SELECT COUNT(*) AS n FROM items`);
      await tx.run(sql`UPDATE items SET id = id WHERE id = ${1}`);
    });
    expect(tally.take().log).toEqual([
      "SELECT COUNT(*) AS n FROM items",
      "BEGIN",
      "UPDATE items SET id = id WHERE id = $1",
      "COMMIT",
    ]);
  });

  test("a unit holds a connection of the pool only from its BEGIN on", async () => {
    // One connection: a unit that kept it from its start would make the statement beside it wait.
    const single = await openPostgres(await postgresDatabase("unit_of_work_lazy"), { max: 1, idleTimeout: 1 });
    try {
      await single.run(sql`CREATE TABLE items (id INTEGER PRIMARY KEY)`);
      let go!: () => void;
      const paused = new Promise<void>((resolve) => (go = resolve));
      const seen: string[] = [];
      const unit = single.transaction(async (tx) => {
        await tx.get(sql`SELECT COUNT(*) AS n FROM items`);
        seen.push("unit read");
        await paused;
        await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${1})`);
      });
      while (seen.length === 0) await Bun.sleep(1);
      await single.get(sql`SELECT 1 AS one`);
      seen.push("beside");
      go();
      await unit;
      expect(seen).toEqual(["unit read", "beside"]);
      expect(await single.all(sql`SELECT id FROM items`)).toEqual([{ id: 1 }]);

      // From BEGIN on, the unit keeps the connection until it ends: its locks and writes are its own.
      const later = new Promise<void>((resolve) => (go = resolve));
      seen.length = 0;
      const locking = single.transaction(async (tx) => {
        await tx.get(sql`SELECT id FROM items WHERE id = ${1} FOR UPDATE`);
        seen.push("unit locked");
        await later;
        seen.push("unit ends");
      });
      while (seen.length === 0) await Bun.sleep(1);
      const beside = single.get(sql`SELECT 1 AS one`).then(() => seen.push("beside"));
      await Bun.sleep(50);
      go();
      await Promise.all([locking, beside]);
      expect(seen).toEqual(["unit locked", "unit ends", "beside"]);
    } finally {
      await single.close();
    }
  });

  test("a unit that sends nothing costs nothing", async () => {
    tally.take();
    expect(await db.transaction(async () => "done")).toBe("done");
    expect(tally.take().total).toBe(0);
  });

  test("a held write that fails at COMMIT fails the unit with its own error, and nothing of the unit is kept", async () => {
    await db.run(sql`DELETE FROM items`);
    await db.run(sql`INSERT INTO items (id) VALUES (${7})`);
    const failing = db.transaction(async (tx) => {
      await tx.run(sql`INSERT INTO items (id) VALUES (${8})`);
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${7})`); // a duplicate
      return "answered";
    });
    expect(failing).rejects.toBeInstanceOf(UniqueViolation);
    await failing.catch(() => {});
    expect(await ids()).toEqual([7]);
    // The connection went back to the pool idle: the next unit works.
    await db.transaction((tx) => writeBehind(tx, sql`INSERT INTO items (id) VALUES (${9})`));
    expect(await ids()).toEqual([7, 9]);
  });

  test("a later statement of the unit sees the held write; a failing one fails the statement it went with", async () => {
    await db.run(sql`DELETE FROM items`);
    const seen = await db.transaction(async (tx) => {
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${1})`);
      return tx.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM items`);
    });
    expect(seen).toEqual({ n: 1 });
    const failing = db.transaction(async (tx) => {
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${1})`);
      await tx.get(sql`SELECT COUNT(*) AS n FROM items`);
      throw new Error("not reached: the read throws the held write's error");
    });
    expect(failing).rejects.toBeInstanceOf(UniqueViolation);
    await failing.catch(() => {});
    expect(await ids()).toEqual([1]);
  });

  test("a savepoint that throws undoes its writes, held or sent, and the unit goes on", async () => {
    await db.run(sql`DELETE FROM items`);
    await db.transaction(async (tx) => {
      await writeBehind(tx, sql`INSERT INTO items (id) VALUES (${1})`);
      // Nothing of this savepoint was sent: its held write is dropped.
      await tx
        .transaction(async (inner) => {
          await writeBehind(inner, sql`INSERT INTO items (id) VALUES (${2})`);
          throw new Error("changed my mind");
        })
        .catch(() => {});
      // This one's write failed on the server: rolled back to the savepoint.
      await tx
        .transaction(async (inner) => {
          await inner.run(sql`INSERT INTO items (id) VALUES (${3})`);
          await writeBehind(inner, sql`INSERT INTO items (id) VALUES (${1})`); // a duplicate: fails at RELEASE
        })
        .catch((error) => expect(error).toBeInstanceOf(UniqueViolation));
      await tx.transaction((inner) => writeBehind(inner, sql`INSERT INTO items (id) VALUES (${4})`));
    });
    expect(await ids()).toEqual([1, 4]);
  });

  test("what a held write changed is told to its caller before the unit's answer", async () => {
    await db.run(sql`DELETE FROM items`);
    let changed = -1;
    await db.transaction((tx) =>
      writeBehind(tx, sql`INSERT INTO items (id) SELECT g FROM generate_series(1, 3) AS g`, {
        then: (result) => (changed = result.changes),
      }),
    );
    expect(changed).toBe(3);
  });
});

test("which independent writes may be merged: never two that change one table unless both only add rows", () => {
  const q = (text: string) => sql`${sql.raw(text)}`;
  expect(mergeable([q("INSERT INTO a (id) VALUES (1)"), q("INSERT INTO a (id) VALUES (2)")])).toBe(true);
  expect(mergeable([q("INSERT INTO a (id) VALUES (1)"), q("UPDATE b SET x = 1")])).toBe(true);
  expect(mergeable([q("UPDATE a SET x = 1"), q("UPDATE a SET y = 1")])).toBe(false);
  expect(mergeable([q("INSERT INTO a (id) VALUES (1)"), q('DELETE FROM "A" WHERE id = 2')])).toBe(false);
  expect(mergeable([q("UPDATE b SET x = 1"), q("INSERT INTO a (id) VALUES (1)"), q("update B set y = 2")])).toBe(false);
  expect(mergeable([q("SELECT 1"), q("INSERT INTO a (id) VALUES (1)")])).toBe(false);
});
