/**
 * A row found by its own key is sought through that key's index on PostgreSQL whatever the
 * planner's statistics say: the plan each lookup gets on a freshly migrated, empty database (where
 * the statistics are unknown and every index looks as cheap as any other), as a generic plan, the
 * one a pooled connection caches for its prepared statement and keeps while the table grows. The
 * invoice lock of pay() once got `invoices_by_merchant` there and walked every invoice of the
 * merchant on each pay (~170 buffers per lock after 3,000 pays instead of 4). SQLite's plans are
 * held by tests/storage/query-plans.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { renderSql, type Executor, type ReadBatch, type Sql } from "../../src/storage/database";
import { rowsParameter } from "../../src/storage/postgres/batching";
import * as customers from "../../src/storage/repositories/customers";
import * as invoices from "../../src/storage/repositories/invoices";
import * as paymentMethods from "../../src/storage/repositories/payment-methods";
import * as transactions from "../../src/storage/repositories/transactions";
import * as adjustments from "../../src/storage/repositories/adjustments";
import * as deposits from "../../src/storage/repositories/deposits";
import * as disputes from "../../src/storage/repositories/disputes";
import * as emails from "../../src/storage/repositories/emails";
import * as files from "../../src/storage/repositories/files";
import * as invoicePayments from "../../src/storage/repositories/invoice-payments";
import * as schedules from "../../src/storage/repositories/invoice-schedules";
import * as items from "../../src/storage/repositories/items";
import * as links from "../../src/storage/repositories/payment-links";
import * as webhooks from "../../src/storage/repositories/webhooks";
import { describePostgres, migratedPostgresDatabase, POSTGRES_TIMEOUT_MS } from "../support/postgres";

/**
 * Runs `read` against an executor that records the statement and answers nothing; `batched`: the
 * statement a batch of two such reads of concurrent requests would send instead (./batched-reads.ts).
 */
async function statementOf(read: (ex: Executor) => Promise<unknown>, batched = false): Promise<Sql> {
  const seen: Sql[] = [];
  const spy = {
    dialect: "postgres",
    all: async (query: Sql) => (seen.push(query), []),
    get: async (query: Sql) => (seen.push(query), undefined),
    run: async (query: Sql) => (seen.push(query), { changes: 0 }),
    getBatched: async (query: Sql, batch: ReadBatch) => (
      seen.push(batched ? batch.select(rowsParameter([batch.row, batch.row])) : query),
      undefined
    ),
    hold: (query: Sql) => void seen.push(query),
  } as unknown as Executor;
  await read(spy);
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

/** A scan node of a plan, and its table. */
const SCAN = /(Seq Scan|Index Scan using \w+|Index Only Scan using \w+|Bitmap Heap Scan) on (\w+)/g;

/** Each lookup and the one index each table it reads must be sought through. */
const LOOKUPS: [string, (ex: Executor) => Promise<unknown>, Record<string, string>, batched?: boolean][] = [
  ["lockInvoice", (ex) => invoices.lockInvoice(ex, "m", "i"), { invoices: "invoices_pkey" }],
  ["findInvoice", (ex) => invoices.findInvoice(ex, "m", "i"), { invoices: "invoices_pkey" }],
  [
    "markInvoice",
    (ex) => invoices.markInvoice(ex, "m", "i", "sent_at", "2026-11-27 10:00:00"),
    { invoices: "invoices_pkey" },
  ],
  [
    "transactionsOfInvoice",
    (ex) => transactions.transactionsOfInvoice(ex, "m", "i"),
    { transactions: "transactions_by_invoice" },
  ],
  ["latestOfInvoice", (ex) => transactions.latestOfInvoice(ex, "m", "i"), { transactions: "transactions_by_invoice" }],
  ["findTransaction", (ex) => transactions.findTransaction(ex, "m", "t"), { transactions: "transactions_pkey" }],
  ["lockTransaction", (ex) => transactions.lockTransaction(ex, "m", "t"), { transactions: "transactions_pkey" }],
  [
    "findPaymentMethod",
    (ex) => paymentMethods.findPaymentMethod(ex, "m", "p"),
    { payment_methods: "payment_methods_pkey" },
  ],
  [
    "findChargeablePaymentMethod",
    (ex) => paymentMethods.findChargeablePaymentMethod(ex, "m", "p"),
    { payment_methods: "payment_methods_pkey" },
  ],
  [
    "findChargeableWithCustomer",
    (ex) => paymentMethods.findChargeableWithCustomer(ex, "m", "p"),
    { payment_methods: "payment_methods_pkey", customers: "customers_pkey" },
  ],
  [
    "findChargeableWithCustomer, batched",
    (ex) => paymentMethods.findChargeableWithCustomer(ex, "m", "p"),
    { payment_methods: "payment_methods_pkey", customers: "customers_pkey" },
    true,
  ],
  ["findCustomer", (ex) => customers.findCustomer(ex, "m", "c"), { customers: "customers_pkey" }],
  [
    "findCustomerOfPaymentMethod",
    (ex) => customers.findCustomerOfPaymentMethod(ex, "m", "p"),
    { customers: "customers_pkey", payment_methods: "payment_methods_pkey" },
  ],
  [
    "adjustmentsOfTransaction",
    (ex) => adjustments.adjustmentsOfTransaction(ex, "m", "t"),
    { deposit_adjustments: "deposit_adjustments_by_transaction" },
  ],
  ["findDepositOfBatch", (ex) => deposits.findDepositOfBatch(ex, "m", "b"), { deposits: "deposits_batch_id_key" }],
  ["lockDispute", (ex) => disputes.lockDispute(ex, "m", "d"), { disputes: "disputes_pkey" }],
  ["findDispute", (ex) => disputes.findDispute(ex, "m", "d"), { disputes: "disputes_pkey" }],
  [
    "disputeOfTransaction",
    (ex) => disputes.disputeOfTransaction(ex, "m", "t"),
    { disputes: "disputes_transaction_id_key" },
  ],
  ["findMerchantEmail", (ex) => emails.findMerchantEmail(ex, "m", "e"), { emails: "emails_pkey" }],
  ["findFile", (ex) => files.findFile(ex, "m", "f"), { files: "files_pkey" }],
  [
    "outsidePaymentsOf",
    (ex) => invoicePayments.outsidePaymentsOf(ex, "m", "i"),
    { invoice_payments: "invoice_payments_of_invoice" },
  ],
  ["findSchedule", (ex) => schedules.findSchedule(ex, "m", "s"), { invoice_schedules: "invoice_schedules_pkey" }],
  ["lockSchedule", (ex) => schedules.lockSchedule(ex, "m", "s"), { invoice_schedules: "invoice_schedules_pkey" }],
  ["findItem", (ex) => items.findItem(ex, "m", "i"), { items: "items_pkey" }],
  ["findLink", (ex) => links.findLink(ex, "m", "l"), { payment_links: "payment_links_pkey" }],
  ["lockLink", (ex) => links.lockLink(ex, "m", "l"), { payment_links: "payment_links_pkey" }],
  ["findWebhook", (ex) => webhooks.findWebhook(ex, "m", "w"), { webhooks: "webhooks_pkey" }],
];

describePostgres("PostgreSQL's plans of lookups by key (issue 33)", () => {
  let admin: SQL;
  beforeAll(async () => {
    admin = new SQL(await migratedPostgresDatabase("plans"), { max: 1 });
  }, POSTGRES_TIMEOUT_MS);
  afterAll(async () => {
    await admin?.close();
  });

  for (const [name, read, expected, batched] of LOOKUPS) {
    test(`${name} seeks ${Object.values(expected).join(" and ")} on an empty database, as a generic plan`, async () => {
      const { text, values } = renderSql(await statementOf(read, batched), "postgres");
      const conn = await admin.reserve();
      try {
        await conn.unsafe("SET plan_cache_mode = force_generic_plan");
        await conn.unsafe(`PREPARE lookup AS ${text}`);
        const args = values.map((v) => (v === null ? "NULL" : `'${String(v).replaceAll("'", "''")}'`)).join(", ");
        const plan = (await conn.unsafe(`EXPLAIN EXECUTE lookup(${args})`)).map(
          (row: Record<string, string>) => row["QUERY PLAN"],
        );
        await conn.unsafe("DEALLOCATE lookup");
        if (process.env.SHOW_PLANS) console.log(name, plan.join("\n"));
        const scans = plan.join("\n");
        for (const [table, index] of Object.entries(expected)) {
          // Every scan of the table goes through the index: no other index, no sequential scan.
          const ofTable = [...scans.matchAll(SCAN)].filter((m) => m[2] === table).map((m) => m[0]);
          expect({ table, scans: ofTable }).toEqual({
            table,
            scans: ofTable.map(() => `Index Scan using ${index} on ${table}`),
          });
          expect(ofTable.length).toBeGreaterThan(0);
        }
      } finally {
        await conn.release();
      }
    });
  }
});
