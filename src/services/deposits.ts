import type {
  DepositDetailItem as DepositDetailItemSchema,
  FundingRecord as FundingRecordSchema,
} from "../domain/schemas/deposits";
import { parseJson } from "../lib/json";
import type { Database } from "../storage/database";
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
   * With a batch_id: that batch's deposit (pending or landed) and its transactions, oldest first.
   * Without: the transactions of every deposit list() gives for the range, deposits newest
   * first and each one's transactions oldest first. Each row has its fee, net and the real
   * service's deposit-detail fields; the records of a page are built in a few queries, whatever its size.
   */
  async listDetail(
    merchantId: string,
    query: DateRange & { batchId?: string },
    page: PageRequest,
  ): Promise<Listing<DepositDetailItem> & { deposit?: Deposit }> {
    if (query.batchId !== undefined) return this.batch(merchantId, query.batchId, page);
    if (!query.startDate && !query.endDate) throw new ValidationFailed({ batch_id: [MESSAGES.depositDetailScope] });
    const total = await repo.countLandedTransactions(this.db, merchantId, query);
    const rows = await repo.landedTransactions(this.db, merchantId, query, page.perPage, page.offset);
    const deposits = await repo.depositsOfBatches(this.db, merchantId, [...new Set(rows.map((row) => row.batch_id!))]);
    const records = await this.transactions.toRecords(this.db, rows);
    return { rows: rows.map((row, index) => item(row, records[index]!, deposits.get(row.batch_id!)!)), total };
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

  private async batch(merchantId: string, batchId: string, page: PageRequest) {
    const deposit = await repo.findDepositOfBatch(this.db, merchantId, batchId);
    if (!deposit) throw new ApiError("not_found", "Deposit batch not found.", { param: "batch_id" });
    const rows = await repo.batchTransactions(this.db, merchantId, batchId, page.perPage, page.offset);
    const records = await this.transactions.toRecords(this.db, rows);
    const items = rows.map((row, index) => item(row, records[index]!, deposit));
    const [record] = await this.records(merchantId, [deposit]);
    return { rows: items, total: deposit.transaction_count, deposit: record! };
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
  };
}

/** A refund or a credit: money the batch pays out, which lowers its deposit. */
function moneyOut(row: TransactionRow): boolean {
  return row.type === "refund" || row.type === "credit";
}
