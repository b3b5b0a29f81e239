import type { DepositDetailItem as DepositDetailItemSchema } from "../domain/schemas/deposits";
import type { Database } from "bun:sqlite";
import { centsToNumber } from "../domain/money";
import { paginate, type Page, type PageRequest } from "../domain/pagination";
import { MESSAGES } from "../../packages/rules/messages";
import { BATCH_ROWS, batchStats, depositRecord, displayBatchId, type Deposit, type DepositRow } from "./settlement";
import { ApiError, ValidationFailed } from "../domain/errors";
import type { Transaction, TransactionRow, TransactionService } from "./transactions";

/** One transaction of a deposit (GET /query/depositDetail): the type of its schema. */
export type DepositDetailItem = typeof DepositDetailItemSchema.static;

export interface DateRange {
  startDate?: string;
  endDate?: string;
}

/** Reads the deposits the settlement jobs (src/services/settlement.ts) wrote. */
export class DepositService {
  constructor(
    private readonly db: Database,
    private readonly transactions: TransactionService,
  ) {}

  /** Landed deposits of a merchant whose deposit date is within the range: the WHERE clause and its parameters. */
  private landedIn(merchantId: string, range: DateRange, alias = ""): { clause: string; params: string[] } {
    const where = [`${alias}merchant_id = ?`, `${alias}deposited_at IS NOT NULL`];
    const params = [merchantId];
    if (range.startDate) {
      where.push(`${alias}deposit_at >= ?`);
      params.push(`${range.startDate} 00:00:00`);
    }
    if (range.endDate) {
      where.push(`${alias}deposit_at <= ?`);
      params.push(`${range.endDate} 23:59:59`);
    }
    return { clause: where.join(" AND "), params };
  }

  private records(merchantId: string, rows: DepositRow[]): Deposit[] {
    const stats = batchStats(
      this.db,
      merchantId,
      rows.map((row) => row.batch_id),
    );
    return rows.map((row) => depositRecord(row, stats.get(row.batch_id)));
  }

  /** Landed deposits whose deposit date is within the range (either end may be left open), newest first. */
  list(merchantId: string, range: DateRange, page: PageRequest, url: string) {
    const { clause, params } = this.landedIn(merchantId, range);
    const total = this.db
      .query<{ n: number }, string[]>(`SELECT COUNT(*) AS n FROM deposits WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<DepositRow, (string | number)[]>(
        `SELECT * FROM deposits WHERE ${clause} ORDER BY deposit_at DESC, method, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    return paginate(this.records(merchantId, rows), total, page, url);
  }

  /**
   * With a batch_id: that batch's deposit (pending or landed) and its transactions, oldest first.
   * Without: the transactions of every deposit list() gives for the range, deposits newest
   * first and each one's transactions oldest first. Each row has its fee, net and the real
   * service's deposit-detail fields.
   */
  detail(
    merchantId: string,
    query: DateRange & { batchId?: string },
    page: PageRequest,
    url: string,
  ): Page<DepositDetailItem> | (Page<DepositDetailItem> & { deposit: Deposit }) {
    if (query.batchId !== undefined) return this.batch(merchantId, query.batchId, page, url);
    if (!query.startDate && !query.endDate) throw new ValidationFailed({ batch_id: [MESSAGES.depositDetailScope] });
    const { clause, params } = this.landedIn(merchantId, query, "d.");
    const total =
      this.db
        .query<{ n: number | null }, string[]>(`SELECT SUM(transaction_count) AS n FROM deposits d WHERE ${clause}`)
        .get(...params)!.n ?? 0;
    const rows = this.db
      .query<TransactionRow, (string | number)[]>(
        `SELECT t.* FROM deposits d JOIN transactions t ON t.batch_id = d.batch_id AND t.merchant_id = d.merchant_id
         WHERE ${clause} AND t.${BATCH_ROWS}
         ORDER BY d.deposit_at DESC, d.method, d.rowid DESC, t.created_at, t.rowid LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    const batchIds = [...new Set(rows.map((row) => row.batch_id!))];
    const deposits = new Map(
      batchIds.length === 0
        ? []
        : this.db
            .query<DepositRow, string[]>(
              `SELECT * FROM deposits WHERE merchant_id = ? AND batch_id IN (${batchIds.map(() => "?").join(", ")})`,
            )
            .all(merchantId, ...batchIds)
            .map((d) => [d.batch_id, d] as const),
    );
    return paginate(
      rows.map((row) => this.item(row, deposits.get(row.batch_id!)!)),
      total,
      page,
      url,
    );
  }

  private batch(merchantId: string, batchId: string, page: PageRequest, url: string) {
    const deposit = this.db
      .query<DepositRow, [string, string]>("SELECT * FROM deposits WHERE batch_id = ? AND merchant_id = ?")
      .get(batchId, merchantId);
    if (!deposit) throw new ApiError("not_found", "Deposit batch not found.", { param: "batch_id" });
    // A captured pre_auth carries its capture's batch_id too; the capture is the row that settled.
    const rows = this.db
      .query<TransactionRow, [string, string, number, number]>(
        `SELECT * FROM transactions WHERE batch_id = ? AND merchant_id = ? AND ${BATCH_ROWS}
         ORDER BY created_at, rowid LIMIT ? OFFSET ?`,
      )
      .all(batchId, merchantId, page.perPage, page.offset);
    const items = rows.map((row) => this.item(row, deposit));
    const [record] = this.records(merchantId, [deposit]);
    return { ...paginate(items, deposit.transaction_count, page, url), deposit: record! };
  }

  private item(row: TransactionRow, deposit: DepositRow): DepositDetailItem {
    const fee = row.fee_cents ?? 0;
    const net = row.type === "refund" ? -row.total_cents : row.total_cents - fee;
    const record = this.transactions.recordNow(row);
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
}
