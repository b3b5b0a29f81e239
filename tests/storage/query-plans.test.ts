/**
 * The batched child loads seek their rows through an index, whatever the size of the merchant:
 * SQLite's own EXPLAIN QUERY PLAN of the exact statement a repository sends. A plan that walks
 * every transaction of the merchant makes a page of invoices cost O(the merchant's history).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { sql, type Executor, type Sql } from "../../src/storage/database";
import { openSqlite } from "../../src/storage/sqlite/database";
import * as customers from "../../src/storage/repositories/customers";
import * as deposits from "../../src/storage/repositories/deposits";
import * as emails from "../../src/storage/repositories/emails";
import * as items from "../../src/storage/repositories/items";
import * as links from "../../src/storage/repositories/payment-links";
import * as schedules from "../../src/storage/repositories/invoice-schedules";
import * as transactions from "../../src/storage/repositories/transactions";
import * as webhooks from "../../src/storage/repositories/webhooks";

const db = await openSqlite(":memory:");
afterAll(() => db.close());

/** Runs `read` against an executor that records the statement and answers nothing. */
async function statementOf(read: (ex: Executor) => Promise<unknown>): Promise<Sql> {
  const seen: Sql[] = [];
  const spy: Executor = {
    dialect: "sqlite",
    all: async (query) => (seen.push(query), []),
    get: async (query) => (seen.push(query), undefined),
    run: async (query) => (seen.push(query), { changes: 0 }),
  };
  await read(spy);
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

async function planOf(query: Sql): Promise<string> {
  const rows = await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${query}`);
  return rows.map((row) => row.detail).join(" | ");
}

const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);

describe("query plans of the batched loads and the per-record lookups", () => {
  for (const count of [1, 2, 20, 100]) {
    test(`the transactions of ${count} invoice(s) are sought by invoice id, never by walking the merchant`, async () => {
      const query = await statementOf((ex) => transactions.transactionsOfInvoices(ex, "merchant", ids(count)));
      const plan = await planOf(query);
      expect(plan).toContain("USING INDEX transactions_by_invoice (invoice_id=? AND merchant_id=?)");
      expect(plan).not.toContain("transactions_by_customer");
      expect(plan).not.toMatch(/SCAN transactions\b/);
    });
  }

  test("the transactions of one invoice are sought by invoice id", async () => {
    const query = await statementOf((ex) => transactions.transactionsOfInvoice(ex, "merchant", "invoice"));
    expect(await planOf(query)).toContain("USING INDEX transactions_by_invoice");
  });

  test("the children of a page of transactions are sought by parent id", async () => {
    const query = await statementOf((ex) => transactions.childrenOf(ex, ids(20)));
    const plan = await planOf(query);
    expect(plan).toMatch(/USING INDEX transactions_(by_parent|children) \(parent_id=\?\)/);
    expect(plan).not.toMatch(/SCAN transactions\b/);
  });

  test("tokenize's customer match seeks the match key, never walking the merchant's customers in date order", async () => {
    const query = await statementOf((ex) =>
      customers.findCustomerByMatchKey(ex, "merchant", "ada|lovelace|ada@example.com"),
    );
    const plan = await planOf(query);
    expect(plan).toContain("USING INDEX customers_by_match (merchant_id=? AND match_key=?)");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  test("the deliveries of one record are sought by record, newest first without a sort", async () => {
    const filters = { recordId: "record" };
    for (const query of [
      await statementOf((ex) => webhooks.countDeliveries(ex, "merchant", filters)),
      await statementOf((ex) => webhooks.listDeliveries(ex, "merchant", filters, 20, 0)),
    ]) {
      const plan = await planOf(query);
      expect(plan).toContain("webhook_deliveries_of_record (merchant_id=? AND record_id=?)");
      expect(plan).not.toContain("TEMP B-TREE");
    }
  });

  test("the e-mails of one transaction, of one invoice, or of both are sought by them", async () => {
    for (const filters of [{ transactionId: "t" }, { invoiceId: "i" }, { transactionId: "t", invoiceId: "i" }]) {
      for (const query of [
        await statementOf((ex) => emails.countEmails(ex, "merchant", filters)),
        await statementOf((ex) => emails.listEmails(ex, "merchant", filters, 20, 0)),
      ]) {
        const plan = await planOf(query);
        expect(plan).toMatch(/emails_of_(transaction|invoice) \(merchant_id=\? AND (transaction|invoice)_id=\?\)/);
        expect(plan).not.toContain("emails_by_seq (merchant_id=?)");
      }
    }
  });

  test("a stored e-mail or text message takes the next outbox number with one seek, not a read of every message", async () => {
    const email = await statementOf((ex) =>
      emails.insertEmail(ex, {
        id: "e",
        merchant_id: "merchant",
        kind: "receipt",
        message_id: "<m@example.com>",
        from_name: "Merchant",
        from_address: "from@example.com",
        to_address: "to@example.com",
        cc_addresses: "[]",
        reply_to: "",
        subject: "s",
        text: "t",
        html: "h",
        raw: "r",
        invoice_id: null,
        transaction_id: null,
        relay_status: "off",
        relay_error: null,
        created_at: "2026-11-21 15:40:00",
      }),
    );
    expect(await planOf(email)).toContain("SEARCH emails USING COVERING INDEX emails_by_global_seq");
    const sms = await statementOf((ex) =>
      emails.insertSms(ex, {
        id: "s",
        merchantId: "merchant",
        to: "5555550100",
        body: "b",
        transactionId: null,
        createdAt: "2026-11-21 15:40:00",
      }),
    );
    expect(await planOf(sms)).toContain("SEARCH sms USING COVERING INDEX sms_by_global_seq");
  });

  test("a transaction's children, captures and voids are sought through transactions_children (053)", async () => {
    // 053 dropped transactions_by_parent, a prefix of transactions_children with the same predicate.
    for (const read of [
      (ex: Executor) => transactions.childrenOf(ex, ids(1)),
      (ex: Executor) => transactions.childrenOf(ex, ids(20)),
    ]) {
      const plan = await planOf(await statementOf(read));
      expect(plan).toContain("USING INDEX transactions_children (parent_id=?)");
      expect(plan).not.toMatch(/SCAN transactions\b/);
    }
  });

  test("a clock advance counts the merchant's settled rows through their own index, not every transaction", async () => {
    const plan = await planOf(await statementOf((ex) => deposits.settlementCounts(ex, "merchant")));
    expect(plan).toContain("transactions_settled (merchant_id=? AND type=?)");
    expect(plan).not.toContain("transactions_by_customer");
  });

  test("catalog items and payment links are sought by id, code or the merchant's index, never scanned", async () => {
    const byId = await planOf(await statementOf((ex) => items.findItem(ex, "merchant", "item")));
    expect(byId).toContain("USING INDEX sqlite_autoindex_items_1 (id=?)");
    const batch = await planOf(await statementOf((ex) => items.itemsByIds(ex, "merchant", ids(20))));
    expect(batch).not.toMatch(/SCAN items\b/);
    const code = await planOf(await statementOf((ex) => items.findItemByCode(ex, "merchant", "SKU-1")));
    expect(code).toContain("items_by_code (merchant_id=? AND code=?)");
    const link = await planOf(await statementOf((ex) => links.lockLink(ex, "merchant", "link")));
    expect(link).toContain("USING INDEX sqlite_autoindex_payment_links_1 (id=?)");
    const stock = await planOf(await statementOf((ex) => items.addStock(ex, "item", -1, "2026-11-21 15:40:00")));
    expect(stock).toContain("(id=?)");
  });

  test("the clock's schedule work finds due schedules through the due index, never walking every schedule", async () => {
    const now = "2026-11-21 15:40:00";
    const due = await planOf(await statementOf((ex) => schedules.earliestDue(ex, "merchant", now)));
    // Rows come in next_run_at order from the index; only ties on next_run_at are sorted by id.
    expect(due).toContain("USING INDEX invoice_schedules_due (merchant_id=? AND next_run_at>? AND next_run_at<?)");
    expect(due).not.toMatch(/SCAN invoice_schedules\b/);
    const stop = await planOf(await statementOf((ex) => schedules.nextOccurrenceAfter(ex, "merchant", now)));
    expect(stop).toContain("USING INDEX invoice_schedules_due (merchant_id=? AND next_run_at>?)");
    // The real-time tick's merchants: the partial due index holds only schedules with an occurrence to come.
    const pending = await planOf(await statementOf((ex) => schedules.merchantsWithSchedules(ex)));
    expect(pending).toContain("USING INDEX invoice_schedules_due");
    const lock = await planOf(await statementOf((ex) => schedules.lockSchedule(ex, "merchant", "schedule")));
    expect(lock).toContain("USING INDEX sqlite_autoindex_invoice_schedules_1 (id=?)");
    const made = await planOf(await statementOf((ex) => schedules.scheduleInvoiceIds(ex, "merchant", "schedule")));
    expect(made).toContain("USING INDEX sqlite_autoindex_invoice_schedule_runs_1 (schedule_id=?)");
    expect(made).not.toContain("TEMP B-TREE");
  });
});
