/**
 * The statement reports of GET /query/statement/v3/*: `adjustments` (refunds, credits and every
 * deposit adjustment) and `achRejects` (./ach-returns.ts). Vocabulary: one verb per report.
 */
import type { Database } from "../storage/database";
import * as repo from "../storage/repositories/statements";
import { adjustmentsByIds } from "../storage/repositories/adjustments";
import { depositsByIds, depositsOfBatches, transactionsByIds } from "../storage/repositories/deposits";
import { centsToNumber } from "../domain/money";
import type { PageRequest } from "../domain/pagination";
import type { AchReturns } from "./ach-returns";

/** One row of GET /query/statement/v3/adjustments: the real service's fields, then the sandbox's. */
export interface StatementAdjustment {
  id: string;
  transaction_id: string | null;
  batch_id: string | null;
  /** refund, credit, or an adjustment's kind (ach_return, return_fee, dispute, …). */
  type: string;
  /** An adjustment's code (a return code, a dispute reason); null for a refund or credit. */
  subtype: string | null;
  /** The absolute amount. */
  amount: number;
  created_at: string;
  /** Its signed effect on the merchant's deposits: negative withdraws, positive gives back. */
  net: number;
  deposit_id: string | null;
  description: string;
}

export interface StatementAdjustmentSummary {
  adjustments_count: number;
  adjustments_amount: number;
  net_amount: number;
}

export class StatementService {
  constructor(
    private readonly db: Database,
    private readonly achReturns: AchReturns,
  ) {}

  /** GET /query/statement/v3/adjustments: refunds, credits and adjustments in the range, oldest first. */
  async adjustments(
    merchantId: string,
    range: repo.StatementRange,
    page: PageRequest,
  ): Promise<{ rows: StatementAdjustment[]; total: number; summary: StatementAdjustmentSummary }> {
    const totals = await repo.statementTotals(this.db, merchantId, range);
    const entries = await repo.statementEntries(this.db, merchantId, range, page.perPage, page.offset);
    const ids = (source: string) => entries.filter((e) => e.source === source).map((e) => e.id);
    const txs = await transactionsByIds(this.db, merchantId, ids("transaction"));
    const adjustments = await adjustmentsByIds(this.db, merchantId, ids("adjustment"));
    const batches = await depositsOfBatches(
      this.db,
      merchantId,
      [...txs.values()].flatMap((row) => (row.batch_id ? [row.batch_id] : [])),
    );
    const deposits = await depositsByIds(
      this.db,
      merchantId,
      [...adjustments.values()].flatMap((row) => (row.deposit_id ? [row.deposit_id] : [])),
    );
    const rows = entries.map((entry): StatementAdjustment => {
      if (entry.source === "transaction") {
        const row = txs.get(entry.id)!;
        return {
          id: row.id,
          transaction_id: row.parent_id ?? row.id,
          batch_id: row.batch_id,
          type: row.type,
          subtype: null,
          amount: centsToNumber(row.total_cents),
          created_at: row.created_at,
          net: centsToNumber(-row.total_cents),
          deposit_id: row.batch_id ? (batches.get(row.batch_id)?.id ?? null) : null,
          description: row.type === "refund" ? "Refund" : "Credit",
        };
      }
      const row = adjustments.get(entry.id)!;
      const deposit = row.deposit_id ? deposits.get(row.deposit_id) : undefined;
      return {
        id: row.id,
        transaction_id: row.transaction_id,
        batch_id: deposit?.batch_id ?? null,
        type: row.kind,
        subtype: row.code,
        amount: centsToNumber(Math.abs(Number(row.amount_cents))),
        created_at: row.effective_at,
        net: centsToNumber(Number(row.amount_cents)),
        deposit_id: row.deposit_id,
        description: row.description,
      };
    });
    return {
      rows,
      total: totals.count,
      summary: {
        adjustments_count: totals.count,
        adjustments_amount: centsToNumber(totals.absoluteCents),
        net_amount: centsToNumber(totals.netCents),
      },
    };
  }

  /** GET /query/statement/v3/ach-rejects. */
  achRejects(merchantId: string, range: repo.StatementRange, page: PageRequest) {
    return this.achReturns.report(merchantId, range, page);
  }
}
