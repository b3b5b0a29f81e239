/**
 * The lookups of the jobs after the charge (ACH returns, card updates, deposit adjustments) seek
 * through their indexes, however many rows the merchant has: SQLite's own EXPLAIN QUERY PLAN of
 * the exact statement each repository sends (as tests/storage/query-plans.test.ts does).
 */
import { afterAll, expect, test } from "bun:test";
import { sql, type Executor, type Sql } from "../../src/storage/database";
import { openSqlite } from "../../src/storage/sqlite/database";
import * as adjustments from "../../src/storage/repositories/adjustments";
import * as achReturns from "../../src/storage/repositories/ach-returns";
import * as cardUpdates from "../../src/storage/repositories/card-updates";

const db = await openSqlite(":memory:");
afterAll(() => db.close());

/** Runs `read` against an executor that records the first statement and answers nothing. */
async function planOf(read: (ex: Executor) => Promise<unknown>): Promise<string> {
  const seen: Sql[] = [];
  const spy: Executor = {
    dialect: "sqlite",
    all: async (query) => (seen.push(query), []),
    get: async (query) => (seen.push(query), undefined),
    run: async (query) => (seen.push(query), { changes: 0 }),
  };
  await read(spy);
  const rows = await db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${seen[0]!}`);
  return rows.map((row) => row.detail).join(" | ");
}

test("the adjustments no deposit has picked up are sought by merchant and time", async () => {
  expect(await planOf((ex) => adjustments.pendingAdjustments(ex, "m", "2026-01-01 00:00:00"))).toContain(
    "deposit_adjustments_pending",
  );
  expect(await planOf((ex) => adjustments.earliestPendingAdjustment(ex, "m"))).toContain("deposit_adjustments_pending");
});

test("a transaction's adjustments are sought by transaction id", async () => {
  expect(await planOf((ex) => adjustments.adjustmentsOfTransaction(ex, "m", "t"))).toContain(
    "deposit_adjustments_by_transaction",
  );
});

test("the ACH returns due are sought by merchant and time", async () => {
  expect(await planOf((ex) => achReturns.dueAchReturns(ex, "m", "2026-01-01 00:00:00"))).toContain("ach_returns_due");
  expect(await planOf((ex) => achReturns.earliestAchReturn(ex, "m"))).toContain("ach_returns_due");
});

test("the charges of an ACH batch are sought by batch id", async () => {
  const plan = await planOf((ex) => achReturns.returningCharges(ex, "m", "2026-01-01 00:00:00"));
  expect(plan).toContain("transactions_by_batch");
  expect(plan).not.toMatch(/SCAN t\b|SCAN transactions\b/);
});

test("the card updates due are sought by merchant and time", async () => {
  expect(await planOf((ex) => cardUpdates.dueCardUpdates(ex, "m", "2026-01-01 00:00:00"))).toContain(
    "payment_methods_card_updates",
  );
});
