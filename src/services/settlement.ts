/**
 * Settlement: the jobs that move money after the charge, run against each merchant's sandbox
 * clock. Everything is decided by timestamps in the database, never by when a job happens to
 * run, so advancing the clock, the real-time ticker and a restart's catch-up all produce the
 * same batches and deposits.
 *
 * The rules (all times UTC; "sale" = a successful charge or capture; voided rows never settle):
 * - Card batch: when the clock crosses a midnight, every card sale, refund and credit created before it
 *   and not yet batched forms one batch; its rows get `batch_id` and `settled_at` = that midnight.
 *   Its deposit lands the next day, at the following midnight.
 * - ACH batch: a bank sale, refund or credit created on day D settles at the end of the
 *   `ach_settlement_days`-th business day (Mon–Fri, no holidays) after D — with the default 2, a
 *   Monday debit settles when Wednesday ends — and with 0, at the end of D. Rows settling at the
 *   same midnight form one ACH batch, whose deposit lands at once (settled ACH funds are available).
 * - A deposit: count = rows in the batch; gross = its sales; refunds = its refunds and credits
 *   (refunds enter the deposit of the batch they settle in, not the one of the sale; a credit,
 *   money sent with no prior charge, settles like a refund); fees = the sum of each
 *   sale's fee (src/domain/fees.ts: card 2.9% + 0.30, ACH 0.8% capped at 5.00, rounded half up to
 *   the cent per transaction; refunds and credits carry no fee, and refunds do not return the sale's fee);
 *   net = gross − refunds − fees (negative when refunds outweigh sales: a debit).
 * - Every midnight crossed is processed in turn, oldest first: batches close, the steps other
 *   features add run (ACH returns, disputes: `addStep`), then deposits land, picking up the
 *   adjustments (src/services/adjustments.ts) in effect by then that no deposit has yet: each
 *   joins a deposit of its method landing at that midnight, or one of its own made for them.
 *
 * Events, inside the job's transaction: `update_transaction_settled` with the top-level
 * transaction record for every transaction whose row (or capture or refund) settled, then
 * `create_deposit` with the deposit record when a deposit lands.
 */
import type { DepositRecord } from "../domain/schemas/deposits";
import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/deposits";
import * as adjustments from "../storage/repositories/adjustments";
import type { BatchStats, DepositRow } from "../storage/repositories/deposits";
import type { TransactionRow, TransactionService } from "./transactions";
import type { EventBus } from "../domain/events";
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

/** The first midnight at or after `ms`. */
export function midnightAtOrAfter(ms: number): number {
  return ms % DAY_MS === 0 ? ms : startOfDay(ms) + DAY_MS;
}

/** The midnight a card row created at `createdAt` is batched. */
export function cardBatchAt(createdAt: string): number {
  return startOfDay(parseTimestamp(createdAt).getTime()) + DAY_MS;
}

/** The midnight a bank row created at `createdAt` settles, given the merchant's ach_settlement_days. */
export function achSettlesAt(createdAt: string, achSettlementDays: number): number {
  return addBusinessDays(startOfDay(parseTimestamp(createdAt).getTime()), achSettlementDays) + DAY_MS;
}

export type { BatchStats, DepositRow } from "../storage/repositories/deposits";

/** The deposit record of GET /query/deposit and the create_deposit event: the type of its schema. */
export type Deposit = typeof DepositRecord.static;

const EMPTY_STATS: BatchStats = {
  lastTransaction: null,
  count: 0,
  sumCents: 0,
  minCents: 0,
  maxCents: 0,
  squaresCents: 0,
};

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
    adjustments: centsToNumber(row.adjustments_cents),
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

/**
 * Work another feature does at a settlement midnight, after the batches close and before the
 * deposits land (an ACH return, a dispute opening), in the midnight's unit of work under the
 * merchant's settlement lock: what it records as adjustments is picked up by that midnight's
 * deposits. Decided by timestamps in the database, like every settlement job.
 */
/** Hands a step work to do once its midnight's unit of work has committed (an e-mail's relay). */
export type AfterCommit = (work: () => void) => void;

export interface SettlementStep {
  /** The earliest midnight (epoch ms) at which it has work for this merchant, or null. */
  nextAt(ex: Executor, merchantId: string): Promise<number | null>;
  /**
   * Does its work due at or before `at` (a midnight); true when it did something. What may only
   * happen once that work is kept (relaying a stored e-mail) goes to `afterCommit`.
   */
  run(ex: Executor, merchantId: string, at: number, afterCommit: AfterCommit): Promise<boolean>;
  /** The merchants it may have work for (read from an index): the real-time tick visits only these. */
  pendingMerchants(): Promise<string[]>;
}

export class Settlement {
  private readonly steps: SettlementStep[] = [];

  constructor(
    private readonly db: Database,
    private readonly events: EventBus<Executor>,
    private readonly transactions: TransactionService,
  ) {}

  /**
   * The merchants with a settlement job pending (unbatched sales or refunds, deposits not landed):
   * the only ones the real-time tick visits (two index walks; idle merchants cost nothing).
   */
  async pendingMerchants(): Promise<string[]> {
    const ids = new Set(await repo.merchantsWithSettlementWork(this.db));
    for (const step of this.steps) for (const id of await step.pendingMerchants()) ids.add(id);
    return [...ids];
  }

  /** Adds a step run at every settlement midnight, in the order added (the composition root). */
  addStep(step: SettlementStep): void {
    this.steps.push(step);
  }

  /** What settlement did for the merchant so far (batches closed, rows settled, deposits landed). */
  counts(merchantId: string): Promise<SettlementRun> {
    return repo.settlementCounts(this.db, merchantId);
  }

  /** The earliest midnight (epoch ms) at which a job of this merchant is due, or null when none is pending. */
  async nextJobAt(merchantId: string, ex: Executor = this.db): Promise<number | null> {
    const due: number[] = [];
    const card = await repo.oldestUnsettled(ex, merchantId, "card");
    if (card) due.push(cardBatchAt(card));
    // achSettlesAt only grows with created_at, so the oldest bank row settles first.
    const bank = await repo.oldestUnsettled(ex, merchantId, "bank");
    if (bank) due.push(achSettlesAt(bank, await repo.achSettlementDays(ex, merchantId)));
    const deposit = await repo.earliestPendingDeposit(ex, merchantId);
    if (deposit) due.push(parseTimestamp(deposit).getTime());
    const adjustment = await adjustments.earliestPendingAdjustment(ex, merchantId);
    if (adjustment) due.push(midnightAtOrAfter(parseTimestamp(adjustment).getTime()));
    for (const step of this.steps) {
      const at = await step.nextAt(ex, merchantId);
      if (at !== null) due.push(at);
    }
    return due.length ? Math.min(...due) : null;
  }

  /**
   * Runs every job of the merchant due at or before `now`, one midnight at a time, oldest first;
   * each midnight is its own unit of work, which holds the merchant's settlement lock and reads
   * again what is due: two processes running the jobs at once never settle a batch twice.
   */
  async run(merchantId: string, now: Date): Promise<SettlementRun> {
    const done: SettlementRun = { batches: 0, settled: 0, deposits: 0 };
    const limit = now.getTime();
    for (;;) {
      // A cheap read first: the real-time ticker calls this every second for every merchant with work.
      const next = await this.nextJobAt(merchantId);
      if (next === null || next > limit) return done;
      const committed: (() => void)[] = [];
      const progressed = await this.db.transaction(async (tx) => {
        committed.length = 0; // a unit of work retried after a deadlock starts its list again
        await repo.lockSettlement(tx, merchantId);
        const at = await this.nextJobAt(merchantId, tx);
        const afterCommit: AfterCommit = (work) => committed.push(work);
        return at !== null && at <= limit && (await this.runAt(tx, merchantId, at, done, afterCommit));
      });
      for (const work of committed) work();
      if (!progressed) return done;
    }
  }

  /** The jobs of one midnight: close the card batch, settle the ACH due, run the steps, land the deposits due. */
  private async runAt(
    tx: Executor,
    merchantId: string,
    at: number,
    done: SettlementRun,
    afterCommit: AfterCommit,
  ): Promise<boolean> {
    const midnight = formatTimestamp(new Date(at));
    const achDays = await repo.achSettlementDays(tx, merchantId);
    const card = await repo.unsettledBefore(tx, merchantId, "card", midnight);
    const bank = (await repo.unsettledBefore(tx, merchantId, "bank", midnight)).filter(
      (row) => achSettlesAt(row.created_at, achDays) <= at,
    );
    let progressed = false;
    if (card.length)
      progressed = (await this.closeBatch(tx, merchantId, "card", card, at, at + DAY_MS, done)) || progressed;
    if (bank.length) progressed = (await this.closeBatch(tx, merchantId, "bank", bank, at, at, done)) || progressed;
    for (const step of this.steps) progressed = (await step.run(tx, merchantId, at, afterCommit)) || progressed;
    return (await this.landDeposits(tx, merchantId, at, done)) || progressed;
  }

  private async closeBatch(
    tx: Executor,
    merchantId: string,
    method: "card" | "bank",
    rows: TransactionRow[],
    at: number,
    depositAt: number,
    done: SettlementRun,
  ): Promise<boolean> {
    const batchId = crypto.randomUUID();
    const settledAt = formatTimestamp(new Date(at));
    let gross = 0;
    let refunds = 0;
    let fees = 0;
    const roots = new Set<string>();
    for (const row of rows) {
      const fee = feeCents(method, row.type, row.total_cents);
      // Credits are money out like refunds: they enter the deposit's refunds.
      if (row.type === "refund" || row.type === "credit") refunds += row.total_cents;
      else gross += row.total_cents;
      fees += fee;
      await repo.batchRow(tx, row.id, { batchId, settledAt, feeCents: fee });
      const rootId = row.parent_id ?? row.id;
      // A pre_auth settles with its capture.
      if (row.type === "capture") await repo.batchParent(tx, rootId, batchId, settledAt);
      roots.add(rootId);
    }
    await repo.insertDeposit(tx, {
      id: crypto.randomUUID(),
      merchant_id: merchantId,
      batch_id: batchId,
      method,
      settled_at: settledAt,
      deposit_at: formatTimestamp(new Date(depositAt)),
      transaction_count: rows.length,
      gross_cents: gross,
      refunds_cents: refunds,
      fees_cents: fees,
      net_cents: gross - refunds - fees,
      created_at: settledAt,
      updated_at: settledAt,
    });
    for (const rootId of roots) {
      const record = await this.transactions.get(merchantId, rootId, tx);
      await this.events.emit(tx, { merchantId, name: "update_transaction_settled", record });
    }
    done.batches += 1;
    done.settled += rows.length;
    return true;
  }

  /**
   * Lands the deposits due at `at`, after handing them the adjustments in effect by then: each
   * method's go to its first deposit landing now, or to a deposit of their own (no transactions),
   * which lands now too. An adjustment-only card deposit is dated as a batch of the day before (a
   * card batch closed then would have landed now), an ACH one as a batch of this midnight.
   */
  private async landDeposits(tx: Executor, merchantId: string, at: number, done: SettlementRun): Promise<boolean> {
    const midnight = formatTimestamp(new Date(at));
    const pending = await adjustments.pendingAdjustments(tx, merchantId, midnight);
    let due = await repo.depositsDue(tx, merchantId, midnight);
    for (const method of ["card", "bank"] as const) {
      const mine = pending.filter((row) => row.method === method);
      if (mine.length === 0 || due.some((row) => row.method === method)) continue;
      const settledAt = formatTimestamp(new Date(method === "card" ? at - DAY_MS : at));
      await repo.insertDeposit(tx, {
        id: crypto.randomUUID(),
        merchant_id: merchantId,
        batch_id: crypto.randomUUID(),
        method,
        settled_at: settledAt,
        deposit_at: midnight,
        transaction_count: 0,
        gross_cents: 0,
        refunds_cents: 0,
        fees_cents: 0,
        net_cents: 0,
        created_at: midnight,
        updated_at: midnight,
      });
      done.batches += 1;
    }
    if (pending.length > 0) due = await repo.depositsDue(tx, merchantId, midnight);
    for (const method of ["card", "bank"] as const) {
      const mine = pending.filter((row) => row.method === method);
      const target = due.find((row) => row.method === method);
      if (mine.length === 0 || !target) continue;
      await adjustments.assignDeposit(
        tx,
        mine.map((row) => row.id),
        target.id,
        midnight,
      );
      await repo.addAdjustments(
        tx,
        target.id,
        mine.reduce((sum, row) => sum + Number(row.amount_cents), 0),
      );
    }
    for (const row of due) {
      const landed = await repo.landDeposit(tx, row.id);
      const stats = (await repo.batchStats(tx, merchantId, [landed.batch_id])).get(landed.batch_id);
      await this.events.emit(tx, { merchantId, name: "create_deposit", record: depositRecord(landed, stats) });
      done.deposits += 1;
    }
    return due.length > 0;
  }
}
