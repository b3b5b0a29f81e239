/**
 * Settlement: the jobs that move money after the charge, run against each merchant's sandbox
 * clock. Everything is decided by timestamps in the database, never by when a job happens to
 * run, so advancing the clock, the real-time ticker and a restart's catch-up all produce the
 * same batches and deposits.
 *
 * The rules (all times UTC; "sale" = a successful charge or capture; voided rows never settle):
 * - Card batch: when the clock crosses a midnight, every card sale and refund created before it
 *   and not yet batched forms one batch; its rows get `batch_id` and `settled_at` = that midnight.
 *   Its deposit lands the next day, at the following midnight.
 * - ACH batch: a bank sale or refund created on day D settles at the end of the
 *   `ach_settlement_days`-th business day (Mon–Fri, no holidays) after D — with the default 2, a
 *   Monday debit settles when Wednesday ends — and with 0, at the end of D. Rows settling at the
 *   same midnight form one ACH batch, whose deposit lands at once (settled ACH funds are available).
 * - A deposit: count = rows in the batch; gross = its sales; refunds = its refunds (refunds enter
 *   the deposit of the batch they settle in, not the one of the sale); fees = the sum of each
 *   sale's fee (src/domain/fees.ts: card 2.9% + 0.30, ACH 0.8% capped at 5.00, rounded half up to
 *   the cent per transaction; refunds carry no fee and do not return the sale's fee);
 *   net = gross − refunds − fees (negative when refunds outweigh sales: a debit).
 * - Every midnight crossed is processed in turn, oldest first: batches close, then deposits land.
 *
 * Events, inside the job's transaction: `update_transaction_settled` with the top-level
 * transaction record for every transaction whose row (or capture or refund) settled, then
 * `create_deposit` with the deposit record when a deposit lands.
 */
import type { DepositRecord } from "../domain/schemas/deposits";
import type { Database } from "bun:sqlite";
import type { TransactionRow, TransactionService } from "./transactions";
import { distinctMerchants } from "../storage/sqlite/distinct-merchants";
import type { EventBus } from "../domain/events";
import type { Executor } from "../storage/database";
import { storageOf } from "../storage/sqlite/connection";
import { centsToNumber } from "../domain/money";
import { formatTimestamp, parseTimestamp } from "../domain/time";
import { feeCents } from "../domain/fees";

export const DAY_MS = 86_400_000;

/** 00:00 UTC of the day `ms` falls in. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** `days` business days (Mon–Fri) after the day starting at `dayStart`. */
export function addBusinessDays(dayStart: number, days: number): number {
  let day = dayStart;
  for (let left = days; left > 0;) {
    day += DAY_MS;
    const weekday = new Date(day).getUTCDay();
    if (weekday !== 0 && weekday !== 6) left--;
  }
  return day;
}

/** The midnight a card row created at `createdAt` is batched. */
export function cardBatchAt(createdAt: string): number {
  return startOfDay(parseTimestamp(createdAt).getTime()) + DAY_MS;
}

/** The midnight a bank row created at `createdAt` settles, given the merchant's ach_settlement_days. */
export function achSettlesAt(createdAt: string, achSettlementDays: number): number {
  return addBusinessDays(startOfDay(parseTimestamp(createdAt).getTime()), achSettlementDays) + DAY_MS;
}

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
  created_at: string;
  updated_at: string;
}

/** The deposit record of GET /query/deposit and the create_deposit event: the type of its schema. */
export type Deposit = typeof DepositRecord.static;

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

const EMPTY_STATS: BatchStats = {
  lastTransaction: null,
  count: 0,
  sumCents: 0,
  minCents: 0,
  maxCents: 0,
  squaresCents: 0,
};

/** The rows a batch pays out: its sales (charges, captures) and refunds, refunds as negative amounts. */
export const BATCH_ROWS = "type IN ('charge', 'capture', 'refund')";

/** BatchStats of each of `batchIds` (of one merchant), in one query. */
export function batchStats(db: Database, merchantId: string, batchIds: string[]): Map<string, BatchStats> {
  const stats = new Map<string, BatchStats>();
  if (batchIds.length === 0) return stats;
  const rows = db
    .query<
      { batch_id: string; last: string; n: number; sum: number; min: number; max: number; squares: number },
      string[]
    >(
      `SELECT batch_id, MAX(created_at) AS last, COUNT(*) AS n, SUM(amount) AS sum, MIN(amount) AS min,
         MAX(amount) AS max, SUM(amount * amount) AS squares
       FROM (SELECT batch_id, created_at, CASE type WHEN 'refund' THEN -total_cents ELSE total_cents END AS amount
             FROM transactions WHERE merchant_id = ? AND batch_id IN (${batchIds.map(() => "?").join(", ")}) AND ${BATCH_ROWS})
       GROUP BY batch_id`,
    )
    .all(merchantId, ...batchIds);
  for (const r of rows) {
    stats.set(r.batch_id, {
      lastTransaction: r.last,
      count: r.n,
      sumCents: r.sum,
      minCents: r.min,
      maxCents: r.max,
      squaresCents: r.squares,
    });
  }
  return stats;
}

/** CARD-YYYYMMDD / ACH-YYYYMMDD: the method and the day its batch closed. */
export function displayBatchId(method: "card" | "bank", settledAt: string): string {
  return `${method === "card" ? "CARD" : "ACH"}-${settledAt.slice(0, 10).replaceAll("-", "")}`;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export function depositRecord(row: DepositRow, stats: BatchStats = EMPTY_STATS): Deposit {
  const mean = stats.count > 0 ? stats.sumCents / stats.count : 0;
  const variance = stats.count > 0 ? Math.max(0, stats.squaresCents / stats.count - mean * mean) : 0;
  return {
    id: row.id,
    batch_id: row.batch_id,
    display_batch_id: displayBatchId(row.method, row.settled_at),
    batched_at: row.settled_at,
    last_transaction: stats.lastTransaction,
    sum: centsToNumber(stats.sumCents),
    avg: round2(mean / 100),
    min: centsToNumber(stats.minCents),
    max: centsToNumber(stats.maxCents),
    std: round2(Math.sqrt(variance) / 100),
    method: row.method,
    settled_at: row.settled_at,
    deposit_date: row.deposit_at.slice(0, 10),
    deposited_at: row.deposited_at,
    count: row.transaction_count,
    gross: centsToNumber(row.gross_cents),
    refunds: centsToNumber(row.refunds_cents),
    fees: centsToNumber(row.fees_cents),
    net: centsToNumber(row.net_cents),
    created_at: row.created_at,
  };
}

/** What one run did. */
export interface SettlementRun {
  batches: number;
  settled: number;
  deposits: number;
}

/** Money-moving rows not yet in a batch: the predicate of the transactions_unsettled index. */
const UNBATCHED = "batch_id IS NULL AND success = 1 AND is_voided = 0 AND type IN ('charge', 'capture', 'refund')";
const UNSETTLED = `merchant_id = ? AND method = ? AND ${UNBATCHED}`;

export class Settlement {
  constructor(
    private readonly db: Database,
    private readonly events: EventBus<Executor>,
    private readonly transactions: TransactionService,
  ) {}

  private achDays(merchantId: string): number {
    return (
      this.db
        .query<{ days: number }, [string]>("SELECT ach_settlement_days AS days FROM merchants WHERE id = ?")
        .get(merchantId)?.days ?? 2
    );
  }

  private oldestUnsettled(merchantId: string, method: "card" | "bank"): string | null {
    return this.db
      .query<{ at: string | null }, [string, string]>(
        `SELECT MIN(created_at) AS at FROM transactions WHERE ${UNSETTLED}`,
      )
      .get(merchantId, method)!.at;
  }

  /**
   * The merchants with a settlement job pending (unbatched sales or refunds, deposits not landed):
   * the only ones the real-time tick visits (two index walks; idle merchants cost nothing).
   */
  pendingMerchants(): string[] {
    const ids = new Set(distinctMerchants(this.db, "transactions", UNBATCHED));
    for (const id of distinctMerchants(this.db, "deposits", "deposited_at IS NULL")) ids.add(id);
    return [...ids];
  }

  /** The earliest midnight (epoch ms) at which a job of this merchant is due, or null when none is pending. */
  nextJobAt(merchantId: string): number | null {
    const due: number[] = [];
    const card = this.oldestUnsettled(merchantId, "card");
    if (card) due.push(cardBatchAt(card));
    // achSettlesAt only grows with created_at, so the oldest bank row settles first.
    const bank = this.oldestUnsettled(merchantId, "bank");
    if (bank) due.push(achSettlesAt(bank, this.achDays(merchantId)));
    const deposit = this.db
      .query<{ at: string | null }, [string]>(
        "SELECT MIN(deposit_at) AS at FROM deposits WHERE merchant_id = ? AND deposited_at IS NULL",
      )
      .get(merchantId)!.at;
    if (deposit) due.push(parseTimestamp(deposit).getTime());
    return due.length ? Math.min(...due) : null;
  }

  /**
   * Runs every job of the merchant due at or before `now`, one midnight at a time, oldest first;
   * each midnight commits in its own immediate transaction.
   */
  run(merchantId: string, now: Date): SettlementRun {
    const done: SettlementRun = { batches: 0, settled: 0, deposits: 0 };
    const limit = now.getTime();
    for (;;) {
      // A cheap read first: the real-time ticker calls this every second for every merchant.
      const next = this.nextJobAt(merchantId);
      if (next === null || next > limit) return done;
      const progressed = this.db
        .transaction(() => {
          const at = this.nextJobAt(merchantId);
          return at !== null && at <= limit && this.runAt(merchantId, at, done);
        })
        .immediate();
      if (!progressed) return done;
    }
  }

  /** The jobs of one midnight: close the card batch, settle the ACH due, land the deposits due. */
  private runAt(merchantId: string, at: number, done: SettlementRun): boolean {
    const midnight = formatTimestamp(new Date(at));
    const unsettled = (method: "card" | "bank") =>
      this.db
        .query<TransactionRow, [string, string, string]>(
          `SELECT * FROM transactions WHERE ${UNSETTLED} AND created_at < ? ORDER BY created_at, rowid`,
        )
        .all(merchantId, method, midnight);
    const achDays = this.achDays(merchantId);
    const card = unsettled("card");
    const bank = unsettled("bank").filter((row) => achSettlesAt(row.created_at, achDays) <= at);
    let progressed = false;
    if (card.length) progressed = this.closeBatch(merchantId, "card", card, at, at + DAY_MS, done) || progressed;
    if (bank.length) progressed = this.closeBatch(merchantId, "bank", bank, at, at, done) || progressed;
    return this.landDeposits(merchantId, midnight, done) || progressed;
  }

  private closeBatch(
    merchantId: string,
    method: "card" | "bank",
    rows: TransactionRow[],
    at: number,
    depositAt: number,
    done: SettlementRun,
  ): boolean {
    const batchId = crypto.randomUUID();
    const settledAt = formatTimestamp(new Date(at));
    let gross = 0;
    let refunds = 0;
    let fees = 0;
    const roots = new Set<string>();
    const setRow = this.db.query(
      "UPDATE transactions SET batch_id = ?, settled_at = ?, fee_cents = ?, updated_at = ? WHERE id = ?",
    );
    for (const row of rows) {
      const fee = feeCents(method, row.type, row.total_cents);
      if (row.type === "refund") refunds += row.total_cents;
      else gross += row.total_cents;
      fees += fee;
      setRow.run(batchId, settledAt, fee, settledAt, row.id);
      const rootId = row.parent_id ?? row.id;
      // A pre_auth settles with its capture.
      if (row.type === "capture") {
        this.db
          .query("UPDATE transactions SET batch_id = ?, settled_at = ?, updated_at = ? WHERE id = ?")
          .run(batchId, settledAt, settledAt, rootId);
      }
      roots.add(rootId);
    }
    this.db
      .query(
        `INSERT INTO deposits (id, merchant_id, batch_id, method, settled_at, deposit_at, transaction_count, gross_cents,
           refunds_cents, fees_cents, net_cents, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        crypto.randomUUID(),
        merchantId,
        batchId,
        method,
        settledAt,
        formatTimestamp(new Date(depositAt)),
        rows.length,
        gross,
        refunds,
        fees,
        gross - refunds - fees,
        settledAt,
        settledAt,
      );
    for (const rootId of roots) {
      // Synchronous until settlement runs in units of work: the record read at once, the listeners
      // (synchronous for this event) run on the connection, inside this job's transaction.
      const record = this.transactions.recordOfNow(merchantId, rootId);
      void this.events.emit(storageOf(this.db), { merchantId, name: "update_transaction_settled", record });
    }
    done.batches += 1;
    done.settled += rows.length;
    return true;
  }

  private landDeposits(merchantId: string, midnight: string, done: SettlementRun): boolean {
    const due = this.db
      .query<DepositRow, [string, string]>(
        "SELECT * FROM deposits WHERE merchant_id = ? AND deposited_at IS NULL AND deposit_at <= ? ORDER BY deposit_at, method, rowid",
      )
      .all(merchantId, midnight);
    for (const row of due) {
      this.db.query("UPDATE deposits SET deposited_at = deposit_at, updated_at = deposit_at WHERE id = ?").run(row.id);
      const landed = this.db.query<DepositRow, [string]>("SELECT * FROM deposits WHERE id = ?").get(row.id)!;
      const stats = batchStats(this.db, merchantId, [landed.batch_id]).get(landed.batch_id);
      void this.events.emit(storageOf(this.db), {
        merchantId,
        name: "create_deposit",
        record: depositRecord(landed, stats),
      });
      done.deposits += 1;
    }
    return due.length > 0;
  }
}
