/**
 * PostgreSQL's batching across concurrent requests (src/storage/postgres/group-commit.ts and
 * batched-reads.ts): units of work ending together with only held writes go out as one statement,
 * and plain reads made together outside a transaction too. What must hold whatever is batched: each
 * unit gets its own verdict (a faulty one fails alone, the others are stored), each write its own
 * count, each read its own rows, and every acknowledged charge is stored exactly once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildDeps, composeApp, type App } from "../../src/entry/app";
import type { AppDeps } from "../../src/http/deps";
import { memoryLogger } from "../../src/lib/logger";
import {
  getBatched,
  sql,
  UniqueViolation,
  writeBehind,
  type Database,
  type ReadBatch,
  type WriteBatch,
} from "../../src/storage/database";
import { openPostgres } from "../../src/storage/postgres/database";
import { markInvoice } from "../../src/storage/repositories/invoices";
import { StatementTally } from "../../src/storage/statement-count";
import { CARD } from "../support/app";

const { card_number: _n, card_cvv: _c, card_exp: _e, method: _m, ...PERSON } = CARD;
const NOW = "2026-11-27 10:00:00";
import { describePostgres, migratedPostgresDatabase, POSTGRES_TIMEOUT_MS, postgresDatabase } from "../support/postgres";

/** A write of `n` rows to `items` from `first` on, in its batch form. */
function itemsWrite(first: number, n: number): { query: ReturnType<typeof sql>; batch: WriteBatch } {
  return {
    query: sql`INSERT INTO items (id) SELECT g FROM generate_series(${first}, ${first + n - 1}) AS g`,
    batch: {
      key: "items",
      row: { first, n },
      select: (rows) => sql`SELECT g AS id, r._row FROM json_to_recordset(${rows}) AS r(_row int, first int, n int),
        generate_series(r.first, r.first + r.n - 1) AS g`,
      insert: (source) => sql`INSERT INTO items (id) SELECT id FROM ${source}`,
    },
  };
}

/** The item `id`, read in its batch form. */
function readItem(db: Database, id: number): Promise<{ id: number } | undefined> {
  const batch: ReadBatch = {
    key: "item",
    row: { id },
    select: (rows) => sql`SELECT i.id, k._row FROM json_to_recordset(${rows}) AS k(_row int, id int)
      JOIN items i ON i.id = k.id`,
  };
  return getBatched(db, sql`SELECT id FROM items WHERE id = ${id}`, batch);
}

describePostgres("PostgreSQL batches concurrent units of work and reads", () => {
  let db: Database;
  const tally = new StatementTally(true);
  const ids = async () => (await db.all<{ id: number }>(sql`SELECT id FROM items ORDER BY id`)).map((row) => row.id);

  beforeAll(async () => {
    db = await openPostgres(await postgresDatabase("batching"), { trace: tally, idleTimeout: 1 });
    await db.run(sql`CREATE TABLE items (id INTEGER PRIMARY KEY)`);
  }, POSTGRES_TIMEOUT_MS);
  afterAll(() => db.close(), POSTGRES_TIMEOUT_MS);

  test("units ending together write in one statement, each told its own count", async () => {
    await db.run(sql`DELETE FROM items`);
    tally.take();
    const counts: number[] = [];
    await Promise.all(
      [1, 2, 3].map((n, index) =>
        db.transaction(async (tx) => {
          const { query, batch } = itemsWrite(index * 10, n);
          await writeBehind(tx, query, {
            independent: true,
            batch,
            then: (result) => (counts[index] = result.changes),
          });
        }),
      ),
    );
    const count = tally.take();
    expect(count.total).toBe(1);
    expect(count.log[0]).toStartWith("WITH s0 AS MATERIALIZED");
    expect(counts).toEqual([1, 2, 3]);
    expect(await ids()).toEqual([0, 10, 11, 20, 21, 22]);
  });

  test("a unit alone sends its own statement", async () => {
    await db.run(sql`DELETE FROM items`);
    tally.take();
    await db.transaction((tx) => writeBehind(tx, itemsWrite(5, 1).query, { batch: itemsWrite(5, 1).batch }));
    expect(tally.take().log).toEqual(["INSERT INTO items (id) SELECT g FROM generate_series($1, $2) AS g"]);
  });

  test("one faulty unit in a batch fails alone with its own error; the others are stored", async () => {
    await db.run(sql`DELETE FROM items`);
    await db.run(sql`INSERT INTO items (id) VALUES (100)`);
    tally.take();
    const outcomes = await Promise.allSettled(
      [0, 100, 200, 300].map((first) =>
        db.transaction(async (tx) => {
          const { query, batch } = itemsWrite(first, 2);
          await writeBehind(tx, query, { independent: true, batch });
          return first;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(UniqueViolation);
    // The batch, then each unit's own statement.
    expect(tally.take().total).toBe(5);
    expect(await ids()).toEqual([0, 1, 100, 200, 201, 300, 301]);
  });

  test("reads made together are one statement, each answered its own row", async () => {
    await db.run(sql`DELETE FROM items`);
    await db.run(sql`INSERT INTO items (id) VALUES (1), (2), (3)`);
    tally.take();
    const rows = await Promise.all([3, 1, 9, 2, 1].map((id) => readItem(db, id)));
    expect(rows).toEqual([{ id: 3 }, { id: 1 }, undefined, { id: 2 }, { id: 1 }]);
    expect(tally.take().total).toBe(1);
    // Inside a transaction a read is never batched.
    await db.transaction(async (tx) => {
      await tx.run(sql`UPDATE items SET id = 4 WHERE id = 3`);
      expect(
        await getBatched(tx, sql`SELECT id FROM items WHERE id = ${4}`, { key: "x", row: {}, select: () => sql`` }),
      ).toEqual({ id: 4 });
    });
  });
});

describePostgres("concurrent POST /charge requests on PostgreSQL", () => {
  let db: Database;
  let deps: AppDeps;
  let app: App;
  let apiKey: string;
  let pmId: string;
  const tally = new StatementTally(true);
  const charge = async (total: number) => {
    const response = await app.handle(
      new Request("http://localhost/charge", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ payment_method_id: pmId, total }),
      }),
    );
    return { status: response.status, body: (await response.json()) as { id: string } };
  };

  let token: string;
  const tokenize = async () => {
    const response = await app.handle(
      new Request(`http://localhost/webpayment/${token}/tokenize`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(CARD),
      }),
    );
    return { status: response.status, body: (await response.json()) as { id: string } };
  };

  beforeAll(async () => {
    db = await openPostgres(await migratedPostgresDatabase("batching_app"), { trace: tally, idleTimeout: 1 });
    deps = await buildDeps({ db, config: { quiet: true }, log: memoryLogger() });
    app = composeApp(deps);
    const merchant = await deps.services.merchants.getDefault();
    apiKey = merchant.api_key;
    token = merchant.web_payments_token;
    pmId = (await tokenize()).body.id;
    expect((await charge(1)).status).toBe(200); // warm: statements prepared
  }, POSTGRES_TIMEOUT_MS);
  afterAll(async () => {
    for (const worker of deps.workers) await worker.stop();
    await db.close();
  }, POSTGRES_TIMEOUT_MS);

  const stored = async (id: string) =>
    (await db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM transactions WHERE id = ${id}`))!.n;

  test("share statements, and every acknowledged charge is stored exactly once", async () => {
    const before = (await db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM transactions`))!.n;
    tally.take();
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => charge(10 + i)));
    const count = tally.take();
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 40 }, () => 200));
    // Alone, each would send three (tests/http/statements-per-request.test.ts): 120. Started
    // together, they go out as a batch of each (3), or a few when the machine is slow.
    expect(count.total).toBeLessThanOrEqual(12);
    expect(count.log).toContain("SELECT m.*, (SELECT COUNT(*)::int FROM webhooks w WHERE w.merchant_id = m.id");
    expect(count.log).toContain("SELECT p.*, k._row, CASE WHEN EXISTS (");
    for (const { body } of answers) expect(await stored(body.id)).toBe(1);
    expect((await db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM transactions`))!.n).toBe(before + 40);
  });

  test("tokenizes of a known person share statements, and each payment method is stored once", async () => {
    await tokenize(); // warm: the known person's statements prepared
    tally.take();
    const answers = await Promise.all(Array.from({ length: 20 }, () => tokenize()));
    const count = tally.take();
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    // Alone, each sends three (tests/http/statements-per-request.test.ts): 60.
    expect(count.total).toBeLessThanOrEqual(12);
    const ids = answers.map((a) => a.body.id);
    expect(new Set(ids).size).toBe(20);
    for (const id of ids) {
      const n = await db.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM payment_methods WHERE id = ${id}`);
      expect(n!.n).toBe(1);
    }
  });

  test("pay()'s invoice requests share statements, and each invoice and its outbox row are stored once", async () => {
    // A webhook wants the invoices: each request writes an outbox row too (none without it).
    const merchant = await deps.services.merchants.getDefault();
    await db.run(sql`INSERT INTO webhooks (id, merchant_id, target_url, event, created_at, updated_at)
      VALUES ('batching-hook', ${merchant.id}, 'http://127.0.0.1:9/hook', 'create_invoice', ${NOW}, ${NOW})`);
    const pm = (await tokenize()).body.id;
    const invoice = async (total: number) => {
      const response = await app.handle(
        new Request(`http://localhost/webpayment/${token}/invoice`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...PERSON, total, payment_method_id: pm }),
        }),
      );
      return { status: response.status, body: (await response.json()) as { id: string; total: number } };
    };
    const warm = await invoice(1); // warm: the statements prepared
    expect(warm).toEqual({ status: 200, body: expect.anything() });
    tally.take();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => invoice(index + 1)));
    const count = tally.take();
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    // Alone, each sends three (tests/http/statements-per-request.test.ts): 60.
    expect(count.total).toBeLessThanOrEqual(12);
    // The invoices and their outbox rows went in batches (the log keeps a statement's first line).
    expect(count.log.filter((line) => line.startsWith("WITH s0 AS MATERIALIZED")).length).toBeGreaterThan(0);
    for (const [index, { body }] of answers.entries()) {
      const rows = await db.all<{ total_cents: number; status: string; payment_method_id: string }>(
        sql`SELECT total_cents, status, payment_method_id FROM invoices WHERE id = ${body.id}`,
      );
      expect(rows).toEqual([{ total_cents: (index + 1) * 100, status: "DRAFT", payment_method_id: pm }]);
      const outbox = await db.all<{ event: string }>(
        sql`SELECT event FROM webhook_deliveries WHERE record_id = ${body.id}`,
      );
      expect(outbox).toEqual([{ event: "create_invoice" }]);
    }
    await db.run(sql`UPDATE webhooks SET deleted_at = ${NOW} WHERE id = 'batching-hook'`);
  });

  /** A new DRAFT invoice to the known person (e-mail and send_receipt from PERSON), answered by id. */
  const newInvoice = async (pm: string, total: number) => {
    const response = await app.handle(
      new Request(`http://localhost/webpayment/${token}/invoice`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...PERSON, total, payment_method_id: pm }),
      }),
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  };
  /** The statements that wrote e-mails (the log keeps a statement's first line). */
  const emailWrites = (log: readonly string[]) => log.filter((line) => line.includes("INSERT INTO emails")).length;

  test("pay()'s receipts share statements: each e-mail stored once, each invoice marked sent", async () => {
    const pm = (await tokenize()).body.id;
    const ids = await Promise.all(Array.from({ length: 20 }, (_, index) => newInvoice(pm, index + 1)));
    tally.take();
    const paid = await Promise.all(
      ids.map((id) =>
        app.handle(
          new Request(`http://localhost/webpayment/${token}/invoice/${id}/pay`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ payment_method_id: pm }),
          }),
        ),
      ),
    );
    expect(paid.map((response) => response.status)).toEqual(ids.map(() => 200));
    const receipts = async () =>
      db.all<{ invoice_id: string; n: number }>(
        sql`SELECT invoice_id, COUNT(*) AS n FROM emails WHERE invoice_id IN (${sql.join(ids.map((id) => sql`${id}`))})
          GROUP BY invoice_id ORDER BY invoice_id`,
      );
    // Each receipt is written once its payment committed, after the answer.
    for (let wait = 0; wait < 100 && (await receipts()).length < ids.length; wait++) await Bun.sleep(20);
    const log = tally.take().log;
    expect((await receipts()).map((r) => [r.invoice_id, Number(r.n)])).toEqual([...ids].sort().map((id) => [id, 1]));
    // Alone, each receipt is one statement of its own: 20.
    expect(emailWrites(log)).toBeLessThanOrEqual(10);
    const unsent = await db.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM invoices WHERE sent_at IS NULL AND id IN (${sql.join(ids.map((id) => sql`${id}`))})`,
    );
    expect(Number(unsent!.n)).toBe(0);
  });

  test("e-mails ending together take their own numbers in order; one invoice marked twice keeps the first", async () => {
    const merchant = await deps.services.merchants.getDefault();
    const pm = (await tokenize()).body.id;
    const invoices = await Promise.all(Array.from({ length: 10 }, (_, index) => newInvoice(pm, index + 1)));
    const mail = (index: number) => ({
      merchantId: merchant.id,
      kind: "invoice" as const,
      from: { name: "Batch", address: "receipts@paysandbox.localhost" },
      to: `batch-${index}@example.com`,
      subject: `Mail ${index}`,
      text: `Mail ${index}`,
      html: `<p>Mail ${index}</p>`,
    });
    // Mail i marks invoice i sent at day i + 1, but mails 5 and 7 mark invoice 2 (after mail 2 did).
    const marked = (index: number) => invoices[index === 5 || index === 7 ? 2 : index]!;
    const day = (index: number) => `2026-01-${String(index + 1).padStart(2, "0")}T00:00:00.000Z`;
    tally.take();
    const rows = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        deps.mailer.send(mail(index), (ex) => markInvoice(ex, merchant.id, marked(index), "sent_at", day(index))),
      ),
    );
    // Alone, each mail is a statement of its own: 10.
    expect(emailWrites(tally.take().log)).toBe(1);
    const stored = await db.all<{ id: string }>(
      sql`SELECT id FROM emails WHERE id IN (${sql.join(rows.map((row) => sql`${row.id}`))}) ORDER BY seq`,
    );
    expect(stored.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    const sent = await db.all<{ id: string; sent_at: string }>(
      sql`SELECT id, sent_at FROM invoices WHERE id IN (${sql.join(invoices.map((id) => sql`${id}`))})`,
    );
    const expected = invoices.map((id, index) => [id, index === 5 || index === 7 ? null : day(index)]);
    expect(Object.fromEntries(sent.map((row) => [row.id, row.sent_at]))).toEqual(Object.fromEntries(expected));
  });

  test("a charge the database refuses fails alone; the charges batched with it are stored", async () => {
    // A fault only the database sees, in the middle of a batch: a charge of 666.66 is refused.
    await db.run(sql`CREATE FUNCTION refuse_666() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.total_cents = 66666 THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END; $$`);
    await db.run(
      sql`CREATE TRIGGER refuse_666 BEFORE INSERT ON transactions FOR EACH ROW EXECUTE FUNCTION refuse_666()`,
    );
    try {
      const totals = [1, 2, 3, 666.66, 5, 6, 7, 8];
      tally.take();
      const answers = await Promise.all(totals.map((total) => charge(total)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 500, 200, 200, 200, 200]);
      // The batch that failed, then each charge's own write.
      const writes = tally.take().log.filter((line) => /^(WITH w0 AS \()?INSERT INTO transactions/.test(line));
      expect(writes.length).toBeGreaterThan(totals.length);
      for (const [index, { body }] of answers.entries()) if (index !== 3) expect(await stored(body.id)).toBe(1);
      const refused = await db.get<{ n: number }>(
        sql`SELECT COUNT(*) AS n FROM transactions WHERE total_cents = 66666`,
      );
      expect(refused!.n).toBe(0);
    } finally {
      await db.run(sql`DROP TRIGGER refuse_666 ON transactions`);
      await db.run(sql`DROP FUNCTION refuse_666()`);
    }
  });
});
