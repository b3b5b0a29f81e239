/**
 * The PostgreSQL storage foundation against a real server (tests/support/postgres.ts): the
 * executor, transactions and savepoints, unique violations, integer conversions, prepared
 * statements, the migrations (also from several processes at once) and the harness itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL, type TransactionSQL } from "bun";
import { Database as SqliteDatabase } from "bun:sqlite";
import { statSync, existsSync } from "node:fs";
import { resolve } from "node:path";
import { sql, UniqueViolation, type Executor } from "../../src/storage/database";
import { insertEmail, insertSms } from "../../src/storage/repositories/emails";
import { openPostgres, type PostgresDatabase } from "../../src/storage/postgres/database";
import { migratePostgres } from "../../src/storage/postgres/migrate";
import { openSqlite } from "../../src/storage/sqlite/database";
import { POSTGRES_MIGRATIONS } from "../../src/storage/postgres/migrations/index";
import { describePostgres, POSTGRES_TIMEOUT_MS, postgresDatabase, startPostgres } from "../support/postgres";
import { holdOpen } from "../support/database";
import { readLines, runToExit } from "../support/process";

describePostgres("PostgreSQL executor", () => {
  let db: PostgresDatabase;

  beforeAll(async () => {
    db = await openPostgres(await postgresDatabase("executor"));
    await db.run(sql`CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT NOT NULL, cents BIGINT NOT NULL, qty INTEGER)`);
  }, POSTGRES_TIMEOUT_MS);
  afterAll(() => db?.close());

  const insert = (executor: Pick<PostgresDatabase, "run">, id: string, cents = 100, qty: number | null = 1) =>
    executor.run(sql`INSERT INTO items (id, name, cents, qty) VALUES (${id}, ${`item ${id}`}, ${cents}, ${qty})`);

  test("parameters are bound, and rows come back as plain objects", async () => {
    await insert(db, "p1", 250, 3);
    const rows = await db.all<Record<string, unknown>>(sql`SELECT * FROM items WHERE id = ${"p1"} AND qty > ${2}`);
    expect(rows).toEqual([{ id: "p1", name: "item p1", cents: 250, qty: 3 }]);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Array.isArray(rows) && rows.constructor).toBe(Array);
    // A value that looks like SQL stays a value.
    expect(await db.all(sql`SELECT id FROM items WHERE id = ${"p1' OR '1'='1"}`)).toEqual([]);
  });

  test("get returns the first row, or undefined when there is none", async () => {
    await insert(db, "g1");
    await insert(db, "g2");
    expect(await db.get<{ id: string }>(sql`SELECT id FROM items WHERE id LIKE ${"g%"} ORDER BY id DESC`)).toEqual({
      id: "g2",
    });
    expect(await db.get(sql`SELECT id FROM items WHERE id = ${"nope"}`)).toBeUndefined();
  });

  test("run reports how many rows it changed", async () => {
    expect(await insert(db, "r1")).toEqual({ changes: 1 });
    await insert(db, "r2");
    expect(await db.run(sql`UPDATE items SET qty = qty + 1 WHERE id LIKE ${"r%"}`)).toEqual({ changes: 2 });
    expect(await db.run(sql`UPDATE items SET qty = 0 WHERE id = ${"missing"}`)).toEqual({ changes: 0 });
    expect(await db.run(sql`DELETE FROM items WHERE id = ${"r1"}`)).toEqual({ changes: 1 });
    const upsert = sql`INSERT INTO items (id, name, cents) VALUES (${"r2"}, ${"x"}, ${1})
      ON CONFLICT (id) DO UPDATE SET cents = items.cents + 1 RETURNING cents`;
    expect(await db.get(upsert)).toEqual({ cents: 101 });
  });

  test("int8 and numeric results are JS numbers, booleans are 0/1, NULL stays null", async () => {
    const big = 9_999_999_999; // the largest total: 99,999,999.99 in cents, beyond 32 bits
    await insert(db, "n1", big, null);
    await insert(db, "n2", 1, 5);
    const row = await db.get(sql`
      SELECT (SELECT cents FROM items WHERE id = ${"n1"}) AS cents,
             COUNT(*) AS count, SUM(cents) AS sum, AVG(qty) AS avg, SUM(qty) AS qty_sum,
             MAX(qty) AS max_qty, (COUNT(*) > ${1}) AS many, (1 = 2) AS none,
             (SELECT qty FROM items WHERE id = ${"n1"}) AS missing
      FROM items WHERE id IN (${"n1"}, ${"n2"})`);
    expect(row).toEqual({
      cents: big,
      count: 2,
      sum: big + 1,
      avg: 5,
      qty_sum: 5,
      max_qty: 5,
      many: 1,
      none: 0,
      missing: null,
    });
  });

  test("an int8 beyond what a JS number holds exactly is an error, not a wrong number", async () => {
    expect(db.get(sql`SELECT 9007199254740993::int8 AS n`)).rejects.toThrow(RangeError);
    expect(await db.get(sql`SELECT 9007199254740991::int8 AS n`)).toEqual({ n: Number.MAX_SAFE_INTEGER });
  });

  test("a unique violation is a UniqueViolation naming the constraint, not the key", async () => {
    await insert(db, "u1");
    const error = await insert(db, "u1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueViolation);
    expect((error as Error).message).toBe("unique constraint items_pkey violated");
    // Other errors pass through as they are.
    const other = await db.run(sql`INSERT INTO items (id) VALUES (${"u2"})`).catch((e: unknown) => e);
    expect(other).not.toBeInstanceOf(UniqueViolation);
    expect((other as Error).message).toContain("null value");
  });

  test("a transaction commits when its work resolves, and is invisible to others until then", async () => {
    let seenOutside: unknown = "not read";
    const result = await db.transaction(async (tx) => {
      await insert(tx, "t1");
      await insert(tx, "t2");
      expect(await tx.get(sql`SELECT id FROM items WHERE id = ${"t1"}`)).toEqual({ id: "t1" });
      seenOutside = await db.get(sql`SELECT id FROM items WHERE id = ${"t1"}`); // another connection
      return "done";
    });
    expect(result).toBe("done");
    expect(seenOutside).toBeUndefined();
    expect(await db.all(sql`SELECT id FROM items WHERE id IN (${"t1"}, ${"t2"}) ORDER BY id`)).toEqual([
      { id: "t1" },
      { id: "t2" },
    ]);
  });

  test("a transaction rolls back everything and rethrows when its work throws", async () => {
    const failure = new Error("card declined");
    expect(
      db.transaction(async (tx) => {
        await insert(tx, "rb1");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.get(sql`SELECT id FROM items WHERE id = ${"rb1"}`)).toBeUndefined();

    await insert(db, "rb-existing");
    const error = await db
      .transaction(async (tx) => {
        await insert(tx, "rb2");
        await insert(tx, "rb-existing");
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UniqueViolation);
    expect(await db.get(sql`SELECT id FROM items WHERE id = ${"rb2"}`)).toBeUndefined();
  });

  test("a nested transaction is a savepoint: its failure undoes only its own writes", async () => {
    await insert(db, "sp-taken");
    const outcome = await db.transaction(async (tx) => {
      await insert(tx, "sp-outer");
      const inner = await tx
        .transaction(async (inner) => {
          await insert(inner, "sp-inner-lost");
          await insert(inner, "sp-taken"); // a UniqueViolation, caught at the savepoint
        })
        .catch((e: unknown) => e);
      expect(inner).toBeInstanceOf(UniqueViolation);
      await tx.transaction(async (inner) => {
        await insert(inner, "sp-inner-kept");
        await inner.transaction((deeper) => insert(deeper, "sp-deeper-kept"));
      });
      await insert(tx, "sp-after"); // the transaction goes on after the failed savepoint
      return "committed";
    });
    expect(outcome).toBe("committed");
    const ids = await db.all<{ id: string }>(sql`SELECT id FROM items WHERE id LIKE ${"sp-%"} ORDER BY id`);
    expect(ids.map((row) => row.id)).toEqual(["sp-after", "sp-deeper-kept", "sp-inner-kept", "sp-outer", "sp-taken"]);
  });

  test(
    "parameterised statements are prepared once per connection and reused",
    async () => {
      const single = await openPostgres(await postgresDatabase("prepared"), { max: 1 });
      try {
        const text = "SELECT $1::text AS echo";
        for (const word of ["a", "b", "c"])
          expect(await single.get(sql`SELECT ${word}::text AS echo`)).toEqual({ echo: word });
        const prepared = await single.all<{ statement: string }>(
          sql`SELECT statement FROM pg_prepared_statements WHERE statement = ${text}`,
        );
        expect(prepared).toEqual([{ statement: text }]);
      } finally {
        await single.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "a unit of work whose prepared SELECT * a schema change made stale runs again and sees the new column",
    async () => {
      const single = await openPostgres(await postgresDatabase("stale-plan"), { max: 1 });
      try {
        await single.run(sql`CREATE TABLE stale (id INTEGER PRIMARY KEY)`);
        await single.run(sql`INSERT INTO stale (id) VALUES (1)`);
        let runs = 0;
        // Locking, so the read runs inside the transaction (where PostgreSQL refuses the stale plan).
        const unit = () =>
          single.transaction((tx) => {
            runs++;
            return tx.get(sql`SELECT * FROM stale WHERE id = ${1} FOR UPDATE`);
          });
        expect(await unit()).toEqual({ id: 1 });
        await single.run(sql`ALTER TABLE stale ADD COLUMN later TEXT NOT NULL DEFAULT 'x'`);
        runs = 0;
        expect(await unit()).toEqual({ id: 1, later: "x" });
        expect(runs).toBe(2);
      } finally {
        await single.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test("a URL that is not postgres:// or a server that does not answer stops with a clear message", async () => {
    expect(openPostgres("sqlite://x.db")).rejects.toThrow("expected a postgres:// URL, got sqlite://");
    expect(openPostgres("not a url")).rejects.toThrow('expected a postgres:// URL, got "not a url"');
    const refused = await openPostgres("postgres://sandbox:s3cret@127.0.0.1:1/nowhere", {
      connectionTimeout: 5,
    }).catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toStartWith(
      "cannot connect to PostgreSQL at postgres://sandbox:***@127.0.0.1:1/nowhere: ",
    );
    expect((refused as Error).message).not.toContain("s3cret");
  });
});

describePostgres("PostgreSQL migrations", () => {
  test(
    "a fresh database is migrated once; a second run applies nothing",
    async () => {
      const db = await openPostgres(await postgresDatabase("migrate_once"));
      try {
        expect(await migratePostgres(db)).toEqual(POSTGRES_MIGRATIONS.map((migration) => migration.version));
        expect(await migratePostgres(db)).toEqual([]);
        expect(await db.all(sql`SELECT version, name FROM schema_migrations ORDER BY version`)).toEqual(
          POSTGRES_MIGRATIONS.map(({ version, name }) => ({ version, name })),
        );
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "a database migrated by a newer sandbox is refused",
    async () => {
      const db = await openPostgres(await postgresDatabase("migrate_newer"));
      try {
        await migratePostgres(db);
        await db.run(
          sql`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${999}, ${"999_future"}, ${"x"})`,
        );
        expect(migratePostgres(db)).rejects.toThrow(
          "the database has migrations this sandbox does not know (999): it was set up by a newer paysandbox",
        );
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "three processes migrating one fresh database at once apply the schema once, without an error",
    async () => {
      const url = await postgresDatabase("migrate_concurrent");
      const child = resolve(import.meta.dir, "migrate-child.ts");
      const children = [1, 2, 3].map(() =>
        Bun.spawn([process.execPath, child, url], { stdin: "pipe", stdout: "pipe", stderr: "pipe" }),
      );
      try {
        // Wait until every process is connected, then release them together.
        const outputs = children.map((proc) => readLines(proc.stdout));
        for (const output of outputs) expect(await output.next()).toBe("ready");
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
        for (const { code, stderr } of results) {
          expect(stderr).toBe("");
          expect(code).toBe(0);
        }
        const applied = results.map(({ line }) => JSON.parse(line ?? "null").applied).sort();
        expect(applied).toEqual([[], [], POSTGRES_MIGRATIONS.map((migration) => migration.version)]);
      } finally {
        for (const proc of children) proc.kill();
      }
      const db = await openPostgres(url);
      try {
        expect(await db.all(sql`SELECT version FROM schema_migrations ORDER BY version`)).toEqual(
          POSTGRES_MIGRATIONS.map((migration) => ({ version: migration.version })),
        );
        expect(await db.get(sql`SELECT COUNT(*) AS n FROM merchants`)).toEqual({ n: 0 });
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "the schema has every table, column, default, index and trigger of the SQLite schema, plus seq where SQLite has rowid",
    async () => {
      const sqlite = (await openSqlite(":memory:")).raw;
      const pg = await openPostgres(await postgresDatabase("schema"));
      try {
        await migratePostgres(pg);
        const shape = await postgresSchema(pg);
        // Insertion order: SQLite's implicit rowid is PostgreSQL's identity column seq (migration 030).
        const sequenced = ["merchants", "customers", "payment_methods", "invoices", "transactions", "deposits"];
        // And the tables of later migrations that list in insertion order (041: items, payment links).
        sequenced.push("items", "payment_links");
        // 040: invoice schedules; 043: deposit adjustments; 044: files and disputes.
        sequenced.push("invoice_schedules", "deposit_adjustments", "files", "disputes");
        for (const table of sequenced) {
          const seq = shape.tables[table]!.find((column) => column.name === "seq");
          expect(seq).toEqual({ name: "seq", notNull: true, default: null, primaryKey: false });
          shape.tables[table] = shape.tables[table]!.filter((column) => column !== seq);
        }
        // The list total's counter has 16 slots per merchant on PostgreSQL, so concurrent charges
        // never queue on one row (migration 035); SQLite's one writer keeps one row.
        const slot = shape.tables.transaction_counts!.find((column) => column.name === "slot");
        expect(slot).toEqual({ name: "slot", notNull: true, default: "0", primaryKey: true });
        shape.tables.transaction_counts = shape.tables.transaction_counts!.filter((column) => column !== slot);
        expect(shape).toEqual(sqliteSchema(sqlite));
      } finally {
        sqlite.close();
        await pg.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "the transaction-count triggers keep the per-merchant count of top-level transactions",
    async () => {
      const db = await openPostgres(await postgresDatabase("triggers"));
      try {
        await migratePostgres(db);
        const now = "2026-11-23 12:00:00";
        for (const id of ["m1", "m2"]) await insertMerchant(db, id, now, { chargeable: true });
        const charge = (id: string, merchant: string, parent: string | null) =>
          db.run(sql`INSERT INTO transactions (id, merchant_id, parent_id, customer_id, payment_method_id, method, type,
          success, total_cents, created_at, updated_at)
          VALUES (${id}, ${merchant}, ${parent}, ${`c-${merchant}`}, ${`pm-${merchant}`}, ${"card"},
            ${parent ? "refund" : "charge"}, ${1}, ${9_999_999_999}, ${now}, ${now})`);
        const counts = () =>
          db.all(
            sql`SELECT merchant_id, SUM(top_level) AS top_level FROM transaction_counts GROUP BY merchant_id ORDER BY merchant_id`,
          );

        await charge("t1", "m1", null);
        await charge("t2", "m1", null);
        await charge("t3", "m1", "t1"); // a child: not counted
        expect(await counts()).toEqual([{ merchant_id: "m1", top_level: 2 }]);

        await db.run(sql`UPDATE transactions SET parent_id = ${"t1"} WHERE id = ${"t2"}`); // becomes a child
        expect(await counts()).toEqual([{ merchant_id: "m1", top_level: 1 }]);
        await db.run(sql`UPDATE transactions SET parent_id = NULL WHERE id = ${"t3"}`); // becomes top-level
        expect(await counts()).toEqual([{ merchant_id: "m1", top_level: 2 }]);

        await db.run(sql`DELETE FROM transactions WHERE id = ${"t2"}`); // a child: no change
        expect(await counts()).toEqual([{ merchant_id: "m1", top_level: 2 }]);
        await db.run(sql`UPDATE transactions SET parent_id = NULL WHERE parent_id IS NOT NULL`);
        await db.run(sql`DELETE FROM transactions WHERE id = ${"t3"}`);
        expect(await counts()).toEqual([{ merchant_id: "m1", top_level: 1 }]);

        // A rolled-back insert leaves the count as it was.
        await db
          .transaction(async (tx) => {
            await tx.run(sql`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type,
            success, total_cents, created_at, updated_at)
            VALUES (${"t9"}, ${"m2"}, ${"c-m2"}, ${"pm-m2"}, ${"card"}, ${"charge"}, ${1}, ${1}, ${now}, ${now})`);
            throw new Error("abort");
          })
          .catch(() => {});
        expect(await counts()).toEqual([{ merchant_id: "m1", top_level: 1 }]);
        await charge("t10", "m2", null);
        expect(await counts()).toEqual([
          { merchant_id: "m1", top_level: 1 },
          { merchant_id: "m2", top_level: 1 },
        ]);
        expect(await db.get(sql`SELECT total_cents FROM transactions WHERE id = ${"t10"}`)).toEqual({
          total_cents: 9_999_999_999,
        });
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});

describePostgres("the transaction counter on PostgreSQL", () => {
  test(
    "no function of the schema is planned again at each call (migration 052)",
    async () => {
      const db = await openPostgres(await postgresDatabase("planned-once"));
      try {
        await migratePostgres(db);
        // A LANGUAGE sql function whose body is not one SELECT is parsed and planned at every call
        // (a SELECT is inlined into its caller's plan); PL/pgSQL keeps its plans per connection.
        const replanned = await db.all(sql`
          SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            JOIN pg_language l ON l.oid = p.prolang
          WHERE n.nspname = 'public' AND l.lanname = 'sql' AND p.prosrc !~* '^\\s*SELECT\\M'`);
        expect(replanned).toEqual([]);
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "two connections charging one merchant at once do not wait for each other's commit (migration 035)",
    async () => {
      const url = await postgresDatabase("count-slots");
      const db = await openPostgres(url);
      // Single connections, so each insert's backend (and counter slot) is known.
      const clients: SQL[] = [];
      try {
        await migratePostgres(db);
        const now = "2026-11-23 12:00:00";
        await insertMerchant(db, "m1", now, { chargeable: true });
        // Two connections whose backends write different slots (pids that differ modulo 16).
        const bySlot = new Map<number, SQL>();
        while (bySlot.size < 2 && clients.length < 40) {
          const client = new SQL(url, { max: 1 });
          clients.push(client);
          const [{ pid }] = await client`SELECT pg_backend_pid() AS pid`;
          if (!bySlot.has(pid % 16)) bySlot.set(pid % 16, client);
        }
        const [first, second] = [...bySlot.values()] as [SQL, SQL];
        const insert = (client: SQL | TransactionSQL, id: string) =>
          client`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
            total_cents, created_at, updated_at)
            VALUES (${id}, ${"m1"}, ${"c-m1"}, ${"pm-m1"}, ${"card"}, ${"charge"}, ${1}, ${100}, ${now}, ${now})`;
        // The first charge inserts and holds its transaction open; the second, on the other
        // connection, commits meanwhile: with one counter row per merchant it waited for the first's
        // COMMIT (here: a lock timeout).
        const open = await holdOpen(
          (work) => first.begin(work),
          (tx: TransactionSQL) => insert(tx, "t1"),
        );
        const outcome = await second
          .begin(async (tx) => {
            await tx`SET LOCAL lock_timeout = '2s'`;
            await insert(tx, "t2");
          })
          .then(
            () => "committed",
            (error: Error) => error.message,
          );
        await open.commit();
        expect(outcome).toBe("committed");
        const total = await db.get<{ n: number }>(
          sql`SELECT SUM(top_level) AS n FROM transaction_counts WHERE merchant_id = ${"m1"}`,
        );
        expect(total).toEqual({ n: 2 });
      } finally {
        await Promise.all(clients.map((client) => client.close()));
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});

describePostgres("outbox numbers on PostgreSQL", () => {
  test(
    "two transactions storing an e-mail and a text message at once get different numbers (migration 036)",
    async () => {
      const url = await postgresDatabase("outbox-numbers");
      const db = await openPostgres(url);
      try {
        await migratePostgres(db);
        const now = "2026-11-23 12:00:00";
        await insertMerchant(db, "m1", now);
        const store = async (tx: Executor, n: number) => {
          await insertEmail(tx, {
            id: `e${n}`,
            merchant_id: "m1",
            kind: "receipt",
            message_id: `<e${n}@sandbox>`,
            from_name: "",
            from_address: "receipts@sandbox.test",
            to_address: "a@example.com",
            cc_addresses: "",
            reply_to: "",
            subject: "Receipt",
            text: "t",
            html: "<p>t</p>",
            raw: "",
            invoice_id: null,
            transaction_id: null,
            relay_status: "off",
            relay_error: null,
            created_at: now,
          });
          await insertSms(tx, {
            id: `s${n}`,
            merchantId: "m1",
            to: "5555550100",
            body: "b",
            transactionId: null,
            createdAt: now,
          });
        };
        await store(db, 0);
        // The first transaction stores its messages and stays open while the second stores and commits.
        const open = await holdOpen(
          (work) => db.transaction(work),
          (tx: Executor) => store(tx, 1),
        );
        await db.transaction((tx) => store(tx, 2));
        await open.commit();
        for (const table of ["emails", "sms"]) {
          const numbers = await db.all<{ seq: number }>(sql`SELECT seq FROM ${sql.raw(table)} ORDER BY seq`);
          expect({ table, numbers: numbers.map((row) => row.seq) }).toEqual({ table, numbers: [1, 2, 3] });
        }
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});

describePostgres("outbox numbers on PostgreSQL, upgraded", () => {
  test(
    "a database with messages from before migration 036 numbers the next ones after them",
    async () => {
      const db = await openPostgres(await postgresDatabase("outbox-upgrade"));
      try {
        await migratePostgres(
          db,
          POSTGRES_MIGRATIONS.filter((migration) => migration.version < 36),
        );
        const now = "2026-11-23 12:00:00";
        await insertMerchant(db, "m1", now);
        await db.run(sql`INSERT INTO sms (id, merchant_id, to_phone, body, created_at, seq)
          VALUES (${"old"}, ${"m1"}, ${"5555550100"}, ${"b"}, ${now}, ${41})`);
        expect(await migratePostgres(db)).toEqual(
          POSTGRES_MIGRATIONS.filter((migration) => migration.version >= 36).map((migration) => migration.version),
        );
        await insertSms(db, {
          id: "new",
          merchantId: "m1",
          to: "5555550100",
          body: "b",
          transactionId: null,
          createdAt: now,
        });
        expect(await db.get(sql`SELECT seq FROM sms WHERE id = ${"new"}`)).toEqual({ seq: 42 });
      } finally {
        await db.close();
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});

describePostgres("the PostgreSQL test harness", () => {
  test(
    "starts a server on loopback as an unprivileged user, and stops it leaving nothing behind, twice",
    async () => {
      for (let round = 1; round <= 2; round++) {
        const server = await startPostgres();
        const url = await server.createDatabase(`round_${round}`);
        expect(url).toBe(`postgres://paysandbox@127.0.0.1:${server.port}/round_${round}_1`);
        const db = await openPostgres(url, { max: 1 });
        expect(
          await db.get(sql`SELECT current_database() AS name, current_setting('listen_addresses') AS listen`),
        ).toEqual({
          name: `round_${round}_1`,
          listen: "127.0.0.1",
        });
        await db.close();
        if (process.getuid?.() === 0) expect(statSync(server.dir).uid).not.toBe(0);
        await server.stop();
        expect(existsSync(server.dir)).toBe(false);
        expect(openPostgres(url, { connectionTimeout: 5 })).rejects.toThrow("cannot connect to PostgreSQL");
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});

/**
 * A separate `bun test` run of fixture files (runToExit leaves out the PAYSANDBOX_* settings of this
 * one, the test dialect included); its exit code and its output.
 */
async function runBunTest(args: string[], env: Record<string, string> = {}) {
  const run = await runToExit([process.execPath, "test", ...args], { env, timeoutMs: POSTGRES_TIMEOUT_MS });
  return { code: run.code, output: run.stdout + run.stderr };
}

describePostgres("the run's shared PostgreSQL server", () => {
  test(
    "files in two --parallel workers share one server, and it is stopped and removed when the run ends",
    async () => {
      const pgBin = process.env.PAYSANDBOX_PG_BIN;
      const { code, output } = await runBunTest(
        [
          "--parallel=2",
          "--parallel-delay=0",
          "./tests/storage/fixtures/shared-postgres-a.ts",
          "./tests/storage/fixtures/shared-postgres-b.ts",
        ],
        pgBin ? { PAYSANDBOX_PG_BIN: pgBin } : {},
      );
      expect({ code, output: code === 0 ? "" : output }).toEqual({ code: 0, output: "" });
      const seen = [...output.matchAll(/SHARED-SERVER (\{.*\})/g)].map(
        (match) => JSON.parse(match[1]!) as { pid: number; dir: string; port: number },
      );
      expect(seen).toHaveLength(2);
      expect(seen[0]!.pid).not.toBe(seen[1]!.pid); // two worker processes
      expect(seen[1]!.dir).toBe(seen[0]!.dir); // one server
      // The watchdog stops it once the run's coordinator is gone (it polls every 0.2 s).
      const deadline = Date.now() + 30_000;
      while (existsSync(seen[0]!.dir) && Date.now() < deadline) await Bun.sleep(100);
      expect(existsSync(seen[0]!.dir)).toBe(false);
      expect(
        openPostgres(`postgres://paysandbox@127.0.0.1:${seen[0]!.port}/postgres`, { connectionTimeout: 5 }),
      ).rejects.toThrow("cannot connect to PostgreSQL");
    },
    POSTGRES_TIMEOUT_MS,
  );
});

describe("without PostgreSQL installed", () => {
  // The fixture decides for itself whether PostgreSQL is there.
  const runFixture = (ci: string) =>
    runBunTest(["./tests/storage/fixtures/needs-postgres.ts"], { PAYSANDBOX_PG_BIN: "/nonexistent", CI: ci });

  test(
    "a PostgreSQL suite is skipped with a notice on a developer's machine",
    async () => {
      const { code, output } = await runFixture("");
      expect(output).toContain("NOTICE: PostgreSQL is not installed");
      expect(output).toContain("1 skip");
      expect(code).toBe(0);
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "under CI=true it fails, saying what to install",
    async () => {
      const { code, output } = await runFixture("true");
      expect(output).toContain("PostgreSQL is installed (CI=true requires it)");
      expect(output).toContain("install Debian's `postgresql` package");
      expect(output).toContain("1 fail");
      expect(code).not.toBe(0);
    },
    POSTGRES_TIMEOUT_MS,
  );
});

/** Reads a process's output line by line. */
/**
 * A merchant row `id`; `chargeable` adds its customer `c-<id>` and card `pm-<id>`, so transactions
 * can be inserted for it.
 */
async function insertMerchant(db: PostgresDatabase, id: string, now: string, options: { chargeable?: boolean } = {}) {
  await db.run(sql`INSERT INTO merchants (id, name, web_payments_token, web_payments_token_hash, api_key,
    api_key_hash, webhook_secret, created_at, updated_at)
    VALUES (${id}, ${id}, ${`t-${id}`}, ${`th-${id}`}, ${`k-${id}`}, ${`kh-${id}`}, ${"s"}, ${now}, ${now})`);
  if (!options.chargeable) return;
  await db.run(sql`INSERT INTO customers (id, merchant_id, match_key, created_at, updated_at)
    VALUES (${`c-${id}`}, ${id}, ${"||"}, ${now}, ${now})`);
  await db.run(sql`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, fingerprint,
    outcome, created_at, updated_at)
    VALUES (${`pm-${id}`}, ${id}, ${`c-${id}`}, ${"card"}, ${"A B"}, ${"f"}, ${"approve"}, ${now}, ${now})`);
}

interface ColumnShape {
  name: string;
  notNull: boolean;
  default: string | null;
  primaryKey: boolean;
}
interface SchemaShape {
  tables: Record<string, ColumnShape[]>;
  indexes: Record<string, { table: string; unique: boolean; partial: boolean; columns: string[] }>;
  triggers: string[];
}

/** A default as both dialects can be compared: 0, '', '[]', ... without casts. */
function normalizeDefault(value: string | null): string | null {
  if (value === null) return null;
  return value.replace(/::[a-z ]+$/, "");
}

function sqliteSchema(db: SqliteDatabase): SchemaShape {
  const shape: SchemaShape = { tables: {}, indexes: {}, triggers: [] };
  const tables = db
    .query<{ name: string }, []>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name",
    )
    .all();
  for (const { name } of tables) {
    const columns = db
      .query<{ name: string; notnull: number; dflt_value: string | null; pk: number }, []>(`PRAGMA table_info(${name})`)
      .all();
    shape.tables[name] = columns.map((column) => ({
      name: column.name,
      notNull: column.notnull === 1 || column.pk > 0,
      default: normalizeDefault(column.dflt_value),
      primaryKey: column.pk > 0,
    }));
    for (const index of db
      .query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list(${name})`)
      .all()) {
      if (index.origin === "pk") continue;
      const columns = db
        .query<{ name: string }, []>(`PRAGMA index_info(${index.name})`)
        .all()
        .map((column) => column.name);
      // A UNIQUE column constraint's automatic index: named after its table and column in PostgreSQL.
      const key = index.origin === "u" ? `${name}_${columns.join("_")}_key` : index.name;
      shape.indexes[key] = { table: name, unique: index.unique === 1, partial: index.partial === 1, columns };
    }
  }
  shape.triggers = db
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
    .all()
    .map((row) => row.name);
  return shape;
}

async function postgresSchema(db: PostgresDatabase): Promise<SchemaShape> {
  const shape: SchemaShape = { tables: {}, indexes: {}, triggers: [] };
  const columns = await db.all<{
    table_name: string;
    column_name: string;
    is_nullable: string;
    column_default: string | null;
    is_identity: string;
    primary_key: number;
  }>(sql`
    SELECT c.table_name, c.column_name, c.is_nullable, c.column_default, c.is_identity,
      EXISTS (SELECT 1 FROM information_schema.key_column_usage k
        JOIN information_schema.table_constraints tc ON tc.constraint_name = k.constraint_name AND tc.table_name = k.table_name
        WHERE tc.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name AND k.column_name = c.column_name) AS primary_key
    FROM information_schema.columns c
    WHERE c.table_schema = 'public' AND c.table_name <> 'schema_migrations'
    ORDER BY c.table_name, c.ordinal_position`);
  for (const column of columns) {
    (shape.tables[column.table_name] ??= []).push({
      name: column.column_name,
      notNull: column.is_nullable === "NO",
      // SQLite's AUTOINCREMENT key is an identity column here; neither has a default to compare.
      default: column.is_identity === "YES" ? null : normalizeDefault(column.column_default),
      primaryKey: column.primary_key === 1,
    });
  }
  const indexes = await db.all<{ name: string; table: string; unique: number; partial: number; columns: string }>(sql`
    SELECT i.relname AS name, t.relname AS table, ix.indisunique AS unique, (ix.indpred IS NOT NULL) AS partial,
      (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
    FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND NOT ix.indisprimary AND t.relname <> 'schema_migrations'`);
  for (const index of indexes) {
    shape.indexes[index.name] = {
      table: index.table,
      unique: index.unique === 1,
      partial: index.partial === 1,
      columns: index.columns.split(","),
    };
  }
  shape.triggers = (
    await db.all<{ name: string }>(
      sql`SELECT DISTINCT trigger_name AS name FROM information_schema.triggers ORDER BY name`,
    )
  ).map((row) => row.name);
  return shape;
}
