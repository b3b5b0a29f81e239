import type { Database } from "bun:sqlite";
import { centsToNumber } from "../../lib/money";
import { paginate, type Page, type PageRequest } from "../../lib/pagination";
import { depositRecord, type Deposit, type DepositRow } from "../../processor/settlement";
import { ApiError } from "../errors";
import type { Transaction, TransactionRow, TransactionService } from "../transactions/service";

export interface DepositDetailItem extends Transaction {
  fee: number;
  net: number;
}

/** Reads the deposits the settlement jobs (processor/settlement.ts) wrote. */
export class DepositService {
  constructor(
    private readonly db: Database,
    private readonly transactions: TransactionService,
  ) {}

  /** Landed deposits whose deposit date is within the range, newest first. */
  list(merchantId: string, range: { startDate?: string; endDate?: string }, page: PageRequest, url: string) {
    const where = ["merchant_id = ?", "deposited_at IS NOT NULL"];
    const params: (string | number)[] = [merchantId];
    if (range.startDate) {
      where.push("deposit_at >= ?");
      params.push(`${range.startDate} 00:00:00`);
    }
    if (range.endDate) {
      where.push("deposit_at <= ?");
      params.push(`${range.endDate} 23:59:59`);
    }
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM deposits WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<DepositRow, (string | number)[]>(
        `SELECT * FROM deposits WHERE ${clause} ORDER BY deposit_at DESC, method, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    return paginate(rows.map(depositRecord), total, page, url);
  }

  /** The batch's deposit (pending or landed) and its transactions, oldest first, each with its fee and net. */
  detail(
    merchantId: string,
    batchId: string,
    page: PageRequest,
    url: string,
  ): Page<DepositDetailItem> & { deposit: Deposit } {
    const deposit = this.db
      .query<DepositRow, [string, string]>("SELECT * FROM deposits WHERE batch_id = ? AND merchant_id = ?")
      .get(batchId, merchantId);
    if (!deposit) throw new ApiError("not_found", "Deposit batch not found.", { param: "batch_id" });
    // A captured pre_auth carries its capture's batch_id too; the capture is the row that settled.
    const where = "batch_id = ? AND merchant_id = ? AND type IN ('charge', 'capture', 'refund')";
    const rows = this.db
      .query<TransactionRow, [string, string, number, number]>(
        `SELECT * FROM transactions WHERE ${where} ORDER BY created_at, rowid LIMIT ? OFFSET ?`,
      )
      .all(batchId, merchantId, page.perPage, page.offset);
    const items = rows.map((row) => {
      const fee = row.fee_cents ?? 0;
      const net = row.type === "refund" ? -row.total_cents : row.total_cents - fee;
      return { ...this.transactions.record(row), fee: centsToNumber(fee), net: centsToNumber(net) };
    });
    return { ...paginate(items, deposit.transaction_count, page, url), deposit: depositRecord(deposit) };
  }
}
