/**
 * Issue 33's cuts of PostgreSQL's own work per row and per statement keep every answer as it was:
 * the charge's one-statement read of a payment method and its customer (row_to_json), the lookups
 * that lost an index to migration 053 (they seek the index that had it as a prefix), and the list
 * total's counter, moved once per statement since 053 (exact after many rows in one statement); 056's
 * 64 counter slots, the e-mail address filters without emails_by_to, and e-mail bodies stored with lz4.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL, type TransactionSQL } from "bun";
import { sql, type Executor, type Sql } from "../../src/storage/database";
import { openPostgres, type PostgresDatabase } from "../../src/storage/postgres/database";
import { findCustomerOfPaymentMethod } from "../../src/storage/repositories/customers";
import { countEmails, findEmail, insertEmail } from "../../src/storage/repositories/emails";
import { findChargeableWithCustomer } from "../../src/storage/repositories/payment-methods";
import { childrenOf } from "../../src/storage/repositories/transactions";
import { holdOpen } from "../support/database";
import { describePostgres, migratedPostgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";

const NOW = "2026-11-27 10:00:00";

/**
 * `count` transactions of merchant m1 or m2 (its customer and payment method) as rows of one SELECT,
 * ids `${prefix}-1` ...; children of `parent` when given (not counted by the list total).
 */
function rows(prefix: string, merchant: "m1" | "m2", count: number, parent: string | null = null): Sql {
  const n = merchant.slice(1);
  return sql`SELECT ${prefix} || '-' || g, ${merchant}, ${parent}::text, ${`c${n}`}, ${`pm${n}`}, 'card',
      ${parent ? "refund" : "charge"}, 1, g, ${NOW}, ${NOW}
    FROM generate_series(1, ${count}::int) g`;
}
const INSERT = sql`INSERT INTO transactions (id, merchant_id, parent_id, customer_id, payment_method_id, method,
  type, success, total_cents, created_at, updated_at)`;

/** The counter's total of each merchant beside the count of its top-level rows: equal when exact. */
async function totals(ex: Executor): Promise<{ counter: unknown; rows: unknown }> {
  return {
    counter: await ex.all(sql`SELECT merchant_id, SUM(top_level)::int AS n FROM transaction_counts
      GROUP BY merchant_id HAVING SUM(top_level) <> 0 ORDER BY merchant_id`),
    rows: await ex.all(sql`SELECT merchant_id, COUNT(*)::int AS n FROM transactions WHERE parent_id IS NULL
      GROUP BY merchant_id ORDER BY merchant_id`),
  };
}

/** Rows of transaction_counts this transaction inserted or updated so far. */
async function counterWrites(ex: Executor): Promise<number> {
  const row = await ex.get<{ n: number }>(sql`SELECT (n_tup_ins + n_tup_upd)::int AS n FROM pg_stat_xact_user_tables
    WHERE relname = 'transaction_counts'`);
  return row?.n ?? 0;
}

describePostgres("PostgreSQL's work per row (issue 33)", () => {
  let db: PostgresDatabase;
  let url: string;
  beforeAll(async () => {
    url = await migratedPostgresDatabase("row-costs");
    db = await openPostgres(url);
    await db.run(sql`INSERT INTO merchants (id, name, web_payments_token, web_payments_token_hash, api_key,
      api_key_hash, webhook_secret, created_at, updated_at)
      VALUES ('m1', 'm1', 't-m1', 'th-m1', 'k-m1', 'kh-m1', 's', ${NOW}, ${NOW})`);
    // Text that JSON must escape, a NULL, numbers and an empty string: what the JSON object carries.
    await db.run(sql`INSERT INTO customers (id, merchant_id, firstname, lastname, company, notes, options,
      allow_invoice_credit_card_payments, match_key, created_at, updated_at)
      VALUES ('c1', 'm1', ${'Zoë "Q" \\ O\'Neil'}, ${"line\nbreak\ttab"}, '', NULL, ${'{"a":[1,2]}'}, 0,
        'k', ${NOW}, ${NOW})`);
    await db.run(sql`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, fingerprint,
      outcome, created_at, updated_at)
      VALUES ('pm1', 'm1', 'c1', 'card', 'Zoë', 'f', 'approve', ${NOW}, ${NOW})`);
    await db.run(sql`INSERT INTO merchants (id, name, web_payments_token, web_payments_token_hash, api_key,
      api_key_hash, webhook_secret, created_at, updated_at)
      VALUES ('m2', 'm2', 't-m2', 'th-m2', 'k-m2', 'kh-m2', 's', ${NOW}, ${NOW})`);
    await db.run(sql`INSERT INTO customers (id, merchant_id, match_key, created_at, updated_at)
      VALUES ('c2', 'm2', 'k', ${NOW}, ${NOW})`);
    await db.run(sql`INSERT INTO payment_methods (id, merchant_id, customer_id, method, person_name, fingerprint,
      outcome, created_at, updated_at)
      VALUES ('pm2', 'm2', 'c2', 'card', 'B', 'f', 'approve', ${NOW}, ${NOW})`);
  }, POSTGRES_TIMEOUT_MS);
  afterAll(() => db?.close());

  test("the charge's read answers the customer field for field as its own read of the row does", async () => {
    const { pm, customer } = await findChargeableWithCustomer(db, "m1", "pm1");
    expect(pm?.id).toBe("pm1");
    const row = await findCustomerOfPaymentMethod(db, "m1", "pm1");
    expect(row?.firstname).toBe('Zoë "Q" \\ O\'Neil');
    // The row's seq (BIGINT) comes as a string from the driver and as a number in JSON; nothing else differs.
    const seq = (r: object | undefined) => String((r as { seq?: unknown } | undefined)?.seq);
    expect({ ...customer, seq: seq(customer) }).toEqual({ ...row!, seq: seq(row) });
    expect(await findChargeableWithCustomer(db, "m2", "pm1")).toEqual({});
  });
  test(
    "a transaction's children are sought through transactions_children, its former prefix gone (053)",
    async () => {
      const indexes = await db.all<{ name: string }>(
        sql`SELECT indexname AS name FROM pg_indexes WHERE indexname IN ('transactions_by_parent', 'emails_by_merchant')`,
      );
      expect(indexes).toEqual([]);
      await db.transaction(async (tx) => {
        // The plan a big table gets: no sequential scan allowed, so the planner names the index it would seek.
        await tx.run(sql`SET LOCAL enable_seqscan = off`);
        const plan = await tx.all<{ "QUERY PLAN": string }>(
          sql`EXPLAIN SELECT seq AS _order, * FROM transactions WHERE parent_id = ${"t1"}`,
        );
        expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("transactions_children");
      });
      expect((await childrenOf(db, ["nope"])).size).toBe(0);
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "one INSERT of 50 rows of two merchants, children among them, moves each total exactly, each counter row once (053)",
    async () => {
      await db.run(sql`${INSERT} ${rows("seed", "m1", 1)}`);
      const written = await db.transaction(async (tx) => {
        const before = await counterWrites(tx);
        await tx.run(sql`${INSERT} ${rows("a", "m1", 30)} UNION ALL ${rows("b", "m2", 10)}
          UNION ALL ${rows("c", "m1", 10, "seed-1")}`);
        return (await counterWrites(tx)) - before;
      });
      // Per row, the 40 top-level rows were 40 upserts of the two slot rows; per statement, one each.
      expect(written).toBe(2);
      const { counter, rows: truth } = await totals(db);
      expect(truth).toEqual([
        { merchant_id: "m1", n: 31 },
        { merchant_id: "m2", n: 10 },
      ]);
      expect(counter).toEqual(truth);
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "the counter stays exact through two INSERTs in one statement, a rolled-back one, multi-row UPDATEs and DELETEs",
    async () => {
      // Two data-modifying CTEs into transactions (the group commit's shape): one statement, both counted.
      await db.run(sql`WITH x AS (${INSERT} ${rows("x", "m1", 5)} RETURNING 1),
        y AS (${INSERT} ${rows("y", "m2", 7)} RETURNING 1) SELECT (SELECT COUNT(*) FROM x), (SELECT COUNT(*) FROM y)`);
      expect((await totals(db)).counter).toEqual((await totals(db)).rows);
      await db
        .transaction(async (tx) => {
          await tx.run(sql`${INSERT} ${rows("gone", "m2", 20)}`);
          throw new Error("abort");
        })
        .catch(() => {});
      expect((await totals(db)).counter).toEqual((await totals(db)).rows);
      // Top-level rows become children and back, in one statement each (the row trigger on UPDATE).
      await db.run(sql`UPDATE transactions SET parent_id = 'seed-1' WHERE id LIKE 'x-%' OR id LIKE 'a-1_'`);
      expect((await totals(db)).counter).toEqual((await totals(db)).rows);
      await db.run(sql`UPDATE transactions SET parent_id = NULL WHERE id LIKE 'c-%' OR id = 'x-1'`);
      expect((await totals(db)).counter).toEqual((await totals(db)).rows);
      // A bulk DELETE of top-level rows and children of both merchants (a reset's shape), then one row.
      await db.run(sql`DELETE FROM transactions WHERE id LIKE 'x-%' OR id LIKE 'a-%' OR id LIKE 'y-%'`);
      expect((await totals(db)).counter).toEqual((await totals(db)).rows);
      await db.run(sql`DELETE FROM transactions WHERE id = 'c-1'`);
      const { counter, rows: truth } = await totals(db);
      expect(counter).toEqual(truth);
      expect(truth).toEqual([
        { merchant_id: "m1", n: 10 },
        { merchant_id: "m2", n: 10 },
      ]);
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "two connections whose slots were one of 16 charge one merchant at once without waiting (056: 64 slots)",
    async () => {
      const clients: SQL[] = [];
      try {
        // Two single connections whose backend ids fold into one slot of 16 but two of 64.
        const byOf16 = new Map<number, { client: SQL; pid: number }>();
        let pair: [SQL, SQL] | undefined;
        while (!pair && clients.length < 60) {
          const client = new SQL(url, { max: 1 });
          clients.push(client);
          const [{ pid }] = await client`SELECT pg_backend_pid() AS pid`;
          const [{ slot }] = await client`SELECT transaction_count_slot() AS slot`;
          expect(slot).toBe(pid % 64);
          const other = byOf16.get(pid % 16);
          if (other && other.pid % 64 !== pid % 64) pair = [other.client, client];
          else if (!other) byOf16.set(pid % 16, { client, pid });
        }
        const [first, second] = pair!;
        const insert = (client: SQL | TransactionSQL, id: string) =>
          client`INSERT INTO transactions (id, merchant_id, customer_id, payment_method_id, method, type, success,
            total_cents, created_at, updated_at)
            VALUES (${id}, 'm2', 'c2', 'pm2', 'card', 'charge', 1, 100, ${NOW}, ${NOW})`;
        const before = (await totals(db)).rows;
        // The first charge holds its slot row until COMMIT; with 16 slots the second waited for it.
        const open = await holdOpen(
          (work) => first.begin(work),
          (tx: TransactionSQL) => insert(tx, "slot-1"),
        );
        const outcome = await second
          .begin(async (tx) => {
            await tx`SET LOCAL lock_timeout = '2s'`;
            await insert(tx, "slot-2");
          })
          .then(
            () => "committed",
            (error: Error) => error.message,
          );
        await open.commit();
        expect(outcome).toBe("committed");
        const { counter, rows: truth } = await totals(db);
        expect(counter).toEqual(truth);
        expect(truth).not.toEqual(before);
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
    },
    POSTGRES_TIMEOUT_MS,
  );

  test(
    "an e-mail is found by its address in any case with emails_by_to gone, its bodies as stored (056)",
    async () => {
      expect(await db.all(sql`SELECT indexname FROM pg_indexes WHERE indexname = 'emails_by_to'`)).toEqual([]);
      const html = `<p>${"Receipt line é ✓ ".repeat(120)}</p>`;
      await insertEmail(db, {
        id: "e-056",
        merchant_id: "m1",
        kind: "receipt",
        message_id: "<e-056@sandbox>",
        from_name: "m1",
        from_address: "m1@example.com",
        to_address: "Pat@Example.com",
        cc_addresses: "[]",
        reply_to: "",
        subject: "Receipt",
        text: "Receipt ".repeat(100),
        html,
        raw: "",
        invoice_id: null,
        transaction_id: null,
        relay_status: "off",
        relay_error: null,
        created_at: NOW,
      });
      expect(await countEmails(db, "m1", { to: "pat@example.COM" })).toBe(1);
      expect(await countEmails(db, "m1", { toContains: "PAT@" })).toBe(1);
      expect((await findEmail(db, "e-056"))?.html).toBe(html);
      // Where the server has lz4 (PostgreSQL 14+ built with it), the body was compressed with it.
      const hasLz4 = await db
        .transaction(async (tx) => {
          await tx.run(sql`CREATE TEMP TABLE lz4_probe (x TEXT COMPRESSION lz4) ON COMMIT DROP`);
          return true;
        })
        .catch(() => false);
      if (hasLz4) {
        const stored = await db.get<{ method: string | null }>(
          sql`SELECT pg_column_compression(html) AS method FROM emails WHERE id = 'e-056'`,
        );
        expect(stored?.method).toBe("lz4");
      }
    },
    POSTGRES_TIMEOUT_MS,
  );
});
