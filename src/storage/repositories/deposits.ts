/**
 * Deposits: one row per settlement batch (card or ACH), landed once deposited_at is set; and the
 * reads of GET /query/deposit and /query/depositDetail over them and their transactions.
 */
import { sql, type Executor, type Sql } from "../database";
import { sameMerchant } from "./keys";
import type { TransactionRow } from "./transactions";
import { insertionOrder } from "./order";
import { distinctMerchants } from "./merchant-scan";

export interface DepositRow {
  id: string;
  merchant_id: string;
  batch_id: string;
  method: "card" | "bank";
  settled_at: string;
  deposit_at: string;
  deposited_at: string | null;
  transaction_count: number;
  gross_cents: number;
  refunds_cents: number;
  fees_cents: number;
  net_cents: number;
  /** The signed sum of the adjustments it picked up (src/storage/repositories/adjustments.ts); in net_cents. */
  adjustments_cents: number;
  created_at: string;
  updated_at: string;
}

/** The amounts of a batch, as the real service's deposit report gives them. */
export interface BatchStats {
  lastTransaction: string | null;
  count: number;
  sumCents: number;
  minCents: number;
  maxCents: number;
  /** Sum of the squared amounts, for the standard deviation. */
  squaresCents: number;
}

export interface DateRange {
  startDate?: string;
  endDate?: string;
}

/** The rows a batch pays out: its sales (charges, captures), refunds and credits. */
const BATCH_ROWS = sql.raw("type IN ('charge', 'capture', 'refund', 'credit')");

/** Landed deposits of a merchant whose deposit date is within the range (either end may be open). */
function landedIn(merchantId: string, range: DateRange, alias = ""): Sql {
  const column = (name: string) => sql.raw(`${alias}${name}`);
  const where = [sql`${column("merchant_id")} = ${merchantId}`, sql`${column("deposited_at")} IS NOT NULL`];
  if (range.startDate) where.push(sql`${column("deposit_at")} >= ${`${range.startDate} 00:00:00`}`);
  if (range.endDate) where.push(sql`${column("deposit_at")} <= ${`${range.endDate} 23:59:59`}`);
  return sql.join(where, " AND ");
}

export async function countLanded(ex: Executor, merchantId: string, range: DateRange): Promise<number> {
  const row = await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM deposits WHERE ${landedIn(merchantId, range)}`);
  return Number(row?.n ?? 0);
}

/** Landed deposits in the range, newest first. */
export function listLanded(
  ex: Executor,
  merchantId: string,
  range: DateRange,
  limit: number,
  offset: number,
): Promise<DepositRow[]> {
  return ex.all(
    sql`SELECT * FROM deposits WHERE ${landedIn(merchantId, range)}
        ORDER BY deposit_at DESC, method, ${insertionOrder(ex)} DESC LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** The deposits `d` of a range: the merchant's landed ones whose deposit date is within it. */
export function landedScope(merchantId: string, range: DateRange): Sql {
  return landedIn(merchantId, range, "d.");
}

/** The deposit `d` of one batch, landed or not. */
export function batchScope(merchantId: string, batchId: string): Sql {
  return sql`d.merchant_id = ${merchantId} AND d.batch_id = ${batchId}`;
}

/** One row of a deposit's detail: a transaction its batch paid out, or an adjustment it picked up. */
export interface DetailEntry {
  source: "transaction" | "adjustment";
  id: string;
}

/** How many detail rows the deposits of a scope hold: their transactions and their adjustments. */
export async function countDetailEntries(ex: Executor, scope: Sql): Promise<number> {
  const row = await ex.get<{ n: number | null; a: number | null }>(
    sql`SELECT (SELECT SUM(d.transaction_count) FROM deposits d WHERE ${scope}) AS n,
          (SELECT COUNT(*) FROM deposits d JOIN deposit_adjustments a ON a.deposit_id = d.id WHERE ${scope}) AS a`,
  );
  return Number(row?.n ?? 0) + Number(row?.a ?? 0);
}

/**
 * The detail rows of the deposits of a scope: deposits newest first; in each, the transactions its
 * batch paid out (oldest first, a captured pre_auth by its capture), then the adjustments it picked
 * up (oldest first).
 */
export function detailEntries(ex: Executor, scope: Sql, limit: number, offset: number): Promise<DetailEntry[]> {
  return ex.all(
    sql`SELECT source, id FROM (
          SELECT 'transaction' AS source, 0 AS part, t.id AS id, d.deposit_at AS d_at, d.method AS d_method,
            ${insertionOrder(ex, "d")} AS d_seq, t.created_at AS at, ${insertionOrder(ex, "t")} AS seq
          FROM deposits d JOIN transactions t ON t.batch_id = d.batch_id AND t.merchant_id = d.merchant_id
          WHERE ${scope} AND t.${BATCH_ROWS}
          UNION ALL
          SELECT 'adjustment', 1, a.id, d.deposit_at, d.method, ${insertionOrder(ex, "d")}, a.effective_at,
            ${insertionOrder(ex, "a")}
          FROM deposits d JOIN deposit_adjustments a ON a.deposit_id = d.id
          WHERE ${scope}
        ) entries
        ORDER BY d_at DESC, d_method, d_seq DESC, part, at, seq LIMIT ${limit} OFFSET ${offset}`,
  );
}

/** Transactions of one merchant by id, in one query. */
export async function transactionsByIds(
  ex: Executor,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, TransactionRow>> {
  if (ids.length === 0) return new Map();
  const rows = await ex.all<TransactionRow>(
    sql`SELECT * FROM transactions WHERE merchant_id = ${merchantId} AND id IN (${sql.join(ids.map((id) => sql`${id}`))})`,
  );
  return new Map(rows.map((row) => [row.id, row] as const));
}

/** The deposits of several batches of one merchant, in one query. */
export async function depositsOfBatches(
  ex: Executor,
  merchantId: string,
  batchIds: readonly string[],
): Promise<Map<string, DepositRow>> {
  if (batchIds.length === 0) return new Map();
  const ids = sql.join(batchIds.map((id) => sql`${id}`));
  const rows = await ex.all<DepositRow>(
    sql`SELECT * FROM deposits WHERE merchant_id = ${merchantId} AND batch_id IN (${ids})`,
  );
  return new Map(rows.map((row) => [row.batch_id, row] as const));
}

export function findDepositOfBatch(ex: Executor, merchantId: string, batchId: string): Promise<DepositRow | undefined> {
  return ex.get(sql`SELECT * FROM deposits WHERE batch_id = ${batchId} AND ${sameMerchant(ex, merchantId)}`);
}

/** BatchStats of each of `batchIds` (of one merchant), in one query. */
export async function batchStats(
  ex: Executor,
  merchantId: string,
  batchIds: readonly string[],
): Promise<Map<string, BatchStats>> {
  const stats = new Map<string, BatchStats>();
  if (batchIds.length === 0) return stats;
  const ids = sql.join(batchIds.map((id) => sql`${id}`));
  const rows = await ex.all<{
    batch_id: string;
    last: string;
    n: number;
    sum: number;
    min: number;
    max: number;
    squares: number;
  }>(
    sql`SELECT batch_id, MAX(created_at) AS last, COUNT(*) AS n, SUM(amount) AS sum, MIN(amount) AS min,
          MAX(amount) AS max, SUM(amount * amount) AS squares
        FROM (SELECT batch_id, created_at, CASE WHEN type IN ('refund', 'credit') THEN -total_cents ELSE total_cents END AS amount
              FROM transactions WHERE merchant_id = ${merchantId} AND batch_id IN (${ids}) AND ${BATCH_ROWS}) AS paid
        GROUP BY batch_id`,
  );
  for (const r of rows) {
    stats.set(r.batch_id, {
      lastTransaction: r.last,
      count: Number(r.n),
      sumCents: Number(r.sum),
      minCents: Number(r.min),
      maxCents: Number(r.max),
      squaresCents: Number(r.squares),
    });
  }
  return stats;
}

export async function countDeposits(ex: Executor, merchantId: string): Promise<number> {
  const row = await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM deposits WHERE merchant_id = ${merchantId}`);
  return Number(row?.n ?? 0);
}

/** Every deposit of the merchant, pending ones included, newest first (the dashboard). */
export function listDeposits(ex: Executor, merchantId: string, limit: number, offset: number): Promise<DepositRow[]> {
  return ex.all(
    sql`SELECT * FROM deposits WHERE merchant_id = ${merchantId}
        ORDER BY deposit_at DESC, ${insertionOrder(ex)} DESC LIMIT ${limit} OFFSET ${offset}`,
  );
}

// --- the settlement jobs -----------------------------------------------------------------

/** Money-moving rows not yet in a batch: the predicate of the transactions_unsettled index (migration 045). */
const UNBATCHED = sql.raw(
  "batch_id IS NULL AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund', 'credit')",
);

/**
 * Merchants with unbatched sales or refunds, deposits not landed or adjustments no deposit picked up:
 * those with a settlement job pending.
 */
export async function merchantsWithSettlementWork(ex: Executor): Promise<string[]> {
  const ids = new Set(await distinctMerchants(ex, "transactions", UNBATCHED));
  for (const id of await distinctMerchants(ex, "deposits", sql`deposited_at IS NULL`)) ids.add(id);
  for (const id of await distinctMerchants(ex, "deposit_adjustments", sql`deposit_id IS NULL`)) ids.add(id);
  return [...ids];
}

/**
 * Takes the merchant's settlement lock for the caller's unit of work, so two processes never run
 * the same midnight's jobs at once (PostgreSQL: a row lock on the merchant; SQLite: the unit of
 * work already holds the database's write lock).
 */
export async function lockSettlement(ex: Executor, merchantId: string): Promise<void> {
  if (ex.dialect === "postgres") await ex.get(sql`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`);
}

export async function achSettlementDays(ex: Executor, merchantId: string): Promise<number> {
  const row = await ex.get<{ days: number }>(
    sql`SELECT ach_settlement_days AS days FROM merchants WHERE id = ${merchantId}`,
  );
  return Number(row?.days ?? 2);
}

/** created_at of the merchant's oldest unbatched row of a method, or null. */
export async function oldestUnsettled(
  ex: Executor,
  merchantId: string,
  method: "card" | "bank",
): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(created_at) AS at FROM transactions WHERE merchant_id = ${merchantId} AND method = ${method} AND ${UNBATCHED}`,
  );
  return row?.at ?? null;
}

/** deposit_at of the merchant's earliest deposit not landed, or null. */
export async function earliestPendingDeposit(ex: Executor, merchantId: string): Promise<string | null> {
  const row = await ex.get<{ at: string | null }>(
    sql`SELECT MIN(deposit_at) AS at FROM deposits WHERE merchant_id = ${merchantId} AND deposited_at IS NULL`,
  );
  return row?.at ?? null;
}

/** The merchant's unbatched rows of a method created before `before`, oldest first. */
export function unsettledBefore(
  ex: Executor,
  merchantId: string,
  method: "card" | "bank",
  before: string,
): Promise<TransactionRow[]> {
  return ex.all(
    sql`SELECT * FROM transactions WHERE merchant_id = ${merchantId} AND method = ${method} AND ${UNBATCHED}
          AND created_at < ${before}
        ORDER BY created_at, ${insertionOrder(ex)}`,
  );
}

/** Puts a row in a batch, with its fee. */
export async function batchRow(
  ex: Executor,
  id: string,
  batch: { batchId: string; settledAt: string; feeCents: number },
): Promise<void> {
  await ex.run(
    sql`UPDATE transactions SET batch_id = ${batch.batchId}, settled_at = ${batch.settledAt}, fee_cents = ${batch.feeCents},
        updated_at = ${batch.settledAt} WHERE id = ${id}`,
  );
}

/** Marks a captured pre_auth settled with its capture's batch. */
export async function batchParent(ex: Executor, id: string, batchId: string, settledAt: string): Promise<void> {
  await ex.run(
    sql`UPDATE transactions SET batch_id = ${batchId}, settled_at = ${settledAt}, updated_at = ${settledAt} WHERE id = ${id}`,
  );
}

export async function insertDeposit(
  ex: Executor,
  row: Omit<DepositRow, "deposited_at" | "adjustments_cents">,
): Promise<void> {
  await ex.run(
    sql`INSERT INTO deposits (id, merchant_id, batch_id, method, settled_at, deposit_at, transaction_count, gross_cents,
          refunds_cents, fees_cents, net_cents, created_at, updated_at)
        VALUES (${row.id}, ${row.merchant_id}, ${row.batch_id}, ${row.method}, ${row.settled_at}, ${row.deposit_at},
          ${row.transaction_count}, ${row.gross_cents}, ${row.refunds_cents}, ${row.fees_cents}, ${row.net_cents},
          ${row.created_at}, ${row.updated_at})`,
  );
}

/** The merchant's deposits due to land by `at`, in landing order. */
export function depositsDue(ex: Executor, merchantId: string, at: string): Promise<DepositRow[]> {
  return ex.all(
    sql`SELECT * FROM deposits WHERE merchant_id = ${merchantId} AND deposited_at IS NULL AND deposit_at <= ${at}
        ORDER BY deposit_at, method, ${insertionOrder(ex)}`,
  );
}

/** Adds adjustments a deposit picked up to it (to adjustments_cents and net_cents). */
export async function addAdjustments(ex: Executor, id: string, cents: number): Promise<void> {
  await ex.run(
    sql`UPDATE deposits SET adjustments_cents = adjustments_cents + ${cents}, net_cents = net_cents + ${cents}
        WHERE id = ${id}`,
  );
}

/** Lands a deposit (deposited_at = its deposit_at) and returns it. */
export async function landDeposit(ex: Executor, id: string): Promise<DepositRow> {
  await ex.run(sql`UPDATE deposits SET deposited_at = deposit_at, updated_at = deposit_at WHERE id = ${id}`);
  return (await ex.get<DepositRow>(sql`SELECT * FROM deposits WHERE id = ${id}`))!;
}

/** What settlement did for a merchant so far: batches closed, rows settled, deposits landed. */
export async function settlementCounts(
  ex: Executor,
  merchantId: string,
): Promise<{ batches: number; settled: number; deposits: number }> {
  const row = await ex.get<{ batches: number; settled: number; deposits: number }>(
    sql`SELECT (SELECT COUNT(*) FROM deposits WHERE merchant_id = ${merchantId}) AS batches,
          (SELECT COUNT(*) FROM transactions WHERE merchant_id = ${merchantId} AND batch_id IS NOT NULL
             AND ${BATCH_ROWS}) AS settled,
          (SELECT COUNT(*) FROM deposits WHERE merchant_id = ${merchantId} AND deposited_at IS NOT NULL) AS deposits`,
  );
  return {
    batches: Number(row?.batches ?? 0),
    settled: Number(row?.settled ?? 0),
    deposits: Number(row?.deposits ?? 0),
  };
}

/** Deposits of one merchant by id, in one query. */
export async function depositsByIds(
  ex: Executor,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, DepositRow>> {
  if (ids.length === 0) return new Map();
  const rows = await ex.all<DepositRow>(
    sql`SELECT * FROM deposits WHERE merchant_id = ${merchantId} AND id IN (${sql.join(ids.map((id) => sql`${id}`))})`,
  );
  return new Map(rows.map((row) => [row.id, row] as const));
}
