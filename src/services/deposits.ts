import type {
  DepositDetailItem as DepositDetailItemSchema,
  FundingRecord as FundingRecordSchema,
} from "../domain/schemas/deposits";
import { parseJson } from "../lib/json";
import type { Database, Sql } from "../storage/database";
import { adjustmentsByIds, type AdjustmentRow } from "../storage/repositories/adjustments";
import * as repo from "../storage/repositories/deposits";
import type { DateRange, DepositRow } from "../storage/repositories/deposits";
import { centsToNumber } from "../domain/money";
import type { Listing, PageRequest } from "../domain/pagination";
import { MESSAGES } from "../../packages/rules/messages";
import { depositRecord, displayBatchId, type Deposit } from "./settlement";
import { ApiError, ValidationFailed } from "../domain/errors";
import type { Transaction, TransactionRow, TransactionService } from "./transactions";

export type { DateRange } from "../storage/repositories/deposits";

/** One transaction of a deposit (GET /query/depositDetail): the type of its schema. */
export type DepositDetailItem = typeof DepositDetailItemSchema.static;

/** One funding instruction of GET /transaction/{id}/funding: the type of its schema. */
export type Funding = typeof FundingRecordSchema.static;

/**
 * Reads the deposits the settlement jobs (src/services/settlement.ts) wrote. Vocabulary: `list`
 * (landed deposits by deposit date, GET /query/deposit), `listWithPending` (every batch, the
 * dashboard), `listDetail` (a batch's or a date range's transactions, GET /query/depositDetail),
 * `funding` (the batches and deposits of one transaction, GET /transaction/{id}/funding).
 */
export class DepositService {
  constructor(
    private readonly db: Database,
    private readonly transactions: TransactionService,
  ) {}

  /** Deposit records of rows, with their batches' amounts (one query for all). */
  private async records(merchantId: string, rows: DepositRow[]): Promise<Deposit[]> {
    const stats = await repo.batchStats(
      this.db,
      merchantId,
      rows.map((row) => row.batch_id),
    );
    return rows.map((row) => depositRecord(row, stats.get(row.batch_id)));
  }

  /** Landed deposits whose deposit date is within the range (either end may be left open), newest first. */
  async list(merchantId: string, range: DateRange, page: PageRequest): Promise<Listing<Deposit>> {
    const total = await repo.countLanded(this.db, merchantId, range);
    const rows = await repo.listLanded(this.db, merchantId, range, page.perPage, page.offset);
    return { rows: await this.records(merchantId, rows), total };
  }

  /** Every deposit of the merchant, pending ones included, newest first (the dashboard). */
  async listWithPending(merchantId: string, page: PageRequest): Promise<Listing<DepositRow>> {
    const total = await repo.countDeposits(this.db, merchantId);
    const rows = await repo.listDeposits(this.db, merchantId, page.perPage, page.offset);
    return { rows, total };
  }

  /**
   * With a batch_id: that batch's deposit (pending or landed) and its rows. Without: the rows of
   * every deposit list() gives for the range, deposits newest first. A deposit's rows are the
   * transactions its batch paid out (oldest first), then the adjustments it picked up (oldest
   * first); each has its fee, net and the real service's deposit-detail fields, and their nets add
   * up to the deposit's. The records of a page are built in a few queries, whatever its size.
   */
  async listDetail(
    merchantId: string,
    query: DateRange & { batchId?: string },
    page: PageRequest,
  ): Promise<Listing<DepositDetailItem> & { deposit?: Deposit }> {
    if (query.batchId !== undefined) {
      const deposit = await repo.findDepositOfBatch(this.db, merchantId, query.batchId);
      if (!deposit) throw new ApiError("not_found", "Deposit batch not found.", { param: "batch_id" });
      const listing = await this.detail(merchantId, repo.batchScope(merchantId, query.batchId), page);
      const [record] = await this.records(merchantId, [deposit]);
      return { ...listing, deposit: record! };
    }
    if (!query.startDate && !query.endDate) throw new ValidationFailed({ batch_id: [MESSAGES.depositDetailScope] });
    return this.detail(merchantId, repo.landedScope(merchantId, query), page);
  }

  private async detail(merchantId: string, scope: Sql, page: PageRequest): Promise<Listing<DepositDetailItem>> {
    const total = await repo.countDetailEntries(this.db, scope);
    const entries = await repo.detailEntries(this.db, scope, page.perPage, page.offset);
    const ids = (source: string) => entries.filter((e) => e.source === source).map((e) => e.id);
    const adjustments = await adjustmentsByIds(this.db, merchantId, ids("adjustment"));
    const txIds = [...ids("transaction"), ...[...adjustments.values()].map((row) => row.transaction_id!)];
    const txRows = await repo.transactionsByIds(this.db, merchantId, [...new Set(txIds)]);
    const rows = [...txRows.values()];
    const records = new Map((await this.transactions.toRecords(this.db, rows)).map((r) => [r.id, r] as const));
    const depositIds = [...new Set([...adjustments.values()].map((row) => row.deposit_id!))];
    const batchIds = new Set(ids("transaction").map((id) => txRows.get(id)!.batch_id!));
    const deposits = await repo.depositsOfBatches(this.db, merchantId, [...batchIds]);
    for (const deposit of (await repo.depositsByIds(this.db, merchantId, depositIds)).values()) {
      deposits.set(deposit.batch_id, deposit);
    }
    const byId = new Map([...deposits.values()].map((row) => [row.id, row] as const));
    const items = entries.map((entry) => {
      if (entry.source === "transaction") {
        const row = txRows.get(entry.id)!;
        return item(row, records.get(row.id)!, deposits.get(row.batch_id!)!);
      }
      const adjustment = adjustments.get(entry.id)!;
      return adjustmentItem(adjustment, records.get(adjustment.transaction_id!)!, byId.get(adjustment.deposit_id!)!);
    });
    return { rows: items, total };
  }

  /**
   * GET /transaction/{id}/funding: each row of the transaction's family that settled (the sale or
   * capture, the refunds), oldest first, with its batch and that batch's deposit. A transaction
   * that has not settled yet (or never will: declined, voided) has none: an empty list.
   */
  async funding(merchantId: string, transactionId: string): Promise<Funding[]> {
    const family = await this.transactions.family(merchantId, transactionId);
    const settled = family.filter((row) => row.batch_id !== null && row.type !== "pre_auth");
    const deposits = await repo.depositsOfBatches(this.db, merchantId, [
      ...new Set(settled.map((row) => row.batch_id!)),
    ]);
    const memo = parseJson<{ memo?: unknown }>(family[0]!.meta, {}).memo;
    return settled.flatMap((row) => {
      const deposit = deposits.get(row.batch_id!);
      if (!deposit) return [];
      return [
        {
          id: row.id,
          transaction_id: transactionId,
          invoice_id: row.invoice_id,
          engine_settlement_id: row.batch_id!,
          engine_transaction_id: row.id,
          account_id: null,
          amount: centsToNumber(moneyOut(row) ? -row.total_cents : row.total_cents),
          memo: typeof memo === "string" ? memo : null,
          meta: null,
          created_at: row.settled_at!,
          updated_at: deposit.updated_at,
          deleted_at: null,
          type: row.type as Funding["type"],
          fee: centsToNumber(row.fee_cents ?? 0),
          batch_id: row.batch_id!,
          display_batch_id: displayBatchId(deposit.method, deposit.settled_at),
          settled_at: row.settled_at!,
          deposit_id: deposit.id,
          deposit_date: deposit.deposit_at.slice(0, 10),
          deposited_at: deposit.deposited_at,
        },
      ];
    });
  }
}

function item(row: TransactionRow, record: Transaction, deposit: DepositRow): DepositDetailItem {
  const fee = row.fee_cents ?? 0;
  const net = moneyOut(row) ? -row.total_cents : row.total_cents - fee;
  const customer = record.payment_method.customer;
  return {
    ...record,
    display_batch_id: displayBatchId(deposit.method, deposit.settled_at),
    batched_at: deposit.settled_at,
    transaction_id: record.id,
    fees: centsToNumber(fee),
    card_type: record.payment_method.card_type,
    customer_firstname: customer.firstname,
    customer_lastname: customer.lastname,
    customer_email: customer.email,
    customer_company: customer.company,
    fee: centsToNumber(fee),
    net: centsToNumber(net),
    adjustment_id: null,
    adjustment_kind: null,
    adjustment_code: null,
  };
}

/** An adjustment's row: the record of the transaction it concerns, as the adjustment. */
function adjustmentItem(row: AdjustmentRow, record: Transaction, deposit: DepositRow): DepositDetailItem {
  const customer = record.payment_method.customer;
  return {
    ...record,
    id: row.id,
    total: centsToNumber(Math.abs(Number(row.amount_cents))),
    created_at: row.effective_at,
    updated_at: row.updated_at,
    batch_id: deposit.batch_id,
    display_batch_id: displayBatchId(deposit.method, deposit.settled_at),
    batched_at: deposit.settled_at,
    transaction_id: record.id,
    fees: 0,
    card_type: record.payment_method.card_type,
    customer_firstname: customer.firstname,
    customer_lastname: customer.lastname,
    customer_email: customer.email,
    customer_company: customer.company,
    fee: 0,
    net: centsToNumber(Number(row.amount_cents)),
    adjustment_id: row.id,
    adjustment_kind: row.kind,
    adjustment_code: row.code,
  };
}

/** A refund or a credit: money the batch pays out, which lowers its deposit. */
function moneyOut(row: TransactionRow): boolean {
  return row.type === "refund" || row.type === "credit";
}
