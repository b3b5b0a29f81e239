/**
 * ACH returns (docs/settlement.md, "ACH returns"): a bank charge on a returning test account
 * (packages/rules/test-data.ts, `achReturn`) approves and settles like any other, then its bank
 * returns it `businessDays` business days after the day it settled, at that day's end (0: at the
 * settlement itself). A settlement step (./settlement.ts): when the ACH batch closes, each such
 * charge is scheduled; at its midnight the charge gets the void child the real service adds (with
 * the return code) and `is_voided`, the returned amount and the return fee are withdrawn through
 * adjustments (./adjustments.ts) from that midnight's deposit, and `update_transaction_settled` is
 * sent with the record. All in the midnight's unit of work: a crash in between does none of it,
 * and the catch-up does all of it, once.
 *
 * Vocabulary: the step's `nextAt`, `run`, `pendingMerchants`; `report` (GET /query/statement/v3/ach-rejects).
 */
import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/ach-returns";
import { lockTransaction, insertChild, markVoided } from "../storage/repositories/transactions";
import { adjustmentsOfTransaction } from "../storage/repositories/adjustments";
import { depositsOfBatches } from "../storage/repositories/deposits";
import type { EventBus } from "../domain/events";
import { ACH_RETURN_FEE_CENTS } from "../domain/fees";
import { centsToNumber } from "../domain/money";
import { formatTimestamp, parseTimestamp } from "../domain/time";
import { ACH_RETURN_REASONS, type AchReturnCode } from "../../packages/rules/test-data";
import type { PageRequest } from "../domain/pagination";
import type { AdjustmentService } from "./adjustments";
import type { TransactionService } from "./transactions";
import { addBusinessDays, DAY_MS, type SettlementStep } from "./settlement";

/** When a charge settled at the midnight `settledMs` is returned: the end of the `days`-th business day after its settlement day. */
export function achReturnAt(settledMs: number, days: number): number {
  return addBusinessDays(settledMs - DAY_MS, days) + DAY_MS;
}

/** The reason a return's void child and its report carry: `R01: Insufficient funds`. */
export function achReturnMessage(code: string): string {
  const reason = ACH_RETURN_REASONS[code as AchReturnCode];
  return reason ? `${code}: ${reason}` : code;
}

/** One row of GET /query/statement/v3/ach-rejects: the real service's fields, then the sandbox's. */
export interface AchReject {
  ach_reject_transaction_id: string;
  ach_reject_transaction_created_at: string;
  ach_reject_transaction_amount: number;
  ach_reject_transaction_timing: "pre_payout" | "post_payout";
  original_transaction_id: string;
  original_transaction_created_at: string;
  original_transaction_amount: number;
  deposit_id: string | null;
  ach_reject_fee_id: string | null;
  ach_reject_fee_amount: number;
  ach_reject_fee_deducted_at: string | null;
  ach_reject_code: string;
  ach_reject_reason: string;
}

export interface AchRejectSummary {
  ach_reject_transaction_count: number;
  ach_reject_transaction_amount: number;
  original_transaction_amount: number;
  ach_reject_fee_amount: number;
}

export class AchReturns implements SettlementStep {
  constructor(
    private readonly db: Database,
    private readonly events: EventBus<Executor>,
    private readonly transactions: TransactionService,
    private readonly adjustments: AdjustmentService,
  ) {}

  async nextAt(ex: Executor, merchantId: string): Promise<number | null> {
    const at = await repo.earliestAchReturn(ex, merchantId);
    return at === null ? null : parseTimestamp(at).getTime();
  }

  pendingMerchants(): Promise<string[]> {
    return repo.merchantsWithAchReturns(this.db);
  }

  /** Schedules the returns of the ACH batch closed at `at`, then returns every charge due by `at`. */
  async run(ex: Executor, merchantId: string, at: number): Promise<boolean> {
    const midnight = formatTimestamp(new Date(at));
    const scheduled = await repo.returningCharges(ex, merchantId, midnight);
    for (const charge of scheduled) {
      await repo.insertAchReturn(ex, {
        transaction_id: charge.id,
        merchant_id: merchantId,
        code: charge.code,
        return_at: formatTimestamp(new Date(achReturnAt(at, charge.days))),
        created_at: midnight,
      });
    }
    const due = await repo.dueAchReturns(ex, merchantId, midnight);
    for (const entry of due) await this.returnOne(ex, merchantId, entry);
    return scheduled.length > 0 || due.length > 0;
  }

  private async returnOne(ex: Executor, merchantId: string, entry: repo.AchReturnRow): Promise<void> {
    const row = (await lockTransaction(ex, merchantId, entry.transaction_id))!;
    const at = entry.return_at;
    const voidId = crypto.randomUUID();
    const message = achReturnMessage(entry.code);
    await insertChild(ex, row, {
      id: voidId,
      type: "void",
      cents: row.total_cents,
      surchargeCents: row.surcharge_cents,
      now: at,
    });
    await repo.stampReturnReason(ex, voidId, entry.code, message);
    await markVoided(ex, row.id, at);
    // Before payout when the deposit that carried the payment has not landed yet (a return on its settlement day).
    const deposit = (await depositsOfBatches(ex, merchantId, [row.batch_id!])).get(row.batch_id!);
    const timing = deposit?.deposited_at ? "post_payout" : "pre_payout";
    const common = {
      method: "bank" as const,
      transactionId: row.id,
      sourceId: voidId,
      code: entry.code,
      effectiveAt: parseTimestamp(at),
      meta: { timing },
    };
    await this.adjustments.record(ex, merchantId, {
      ...common,
      kind: "ach_return",
      amountCents: -row.total_cents,
      description: `ACH return ${message}`,
      key: `ach_return:${row.id}`,
    });
    await this.adjustments.record(ex, merchantId, {
      ...common,
      kind: "return_fee",
      amountCents: -ACH_RETURN_FEE_CENTS,
      description: `ACH return fee (${entry.code})`,
      key: `return_fee:${row.id}`,
    });
    await repo.markReturned(ex, row.id, at, voidId);
    const record = await this.transactions.get(merchantId, row.id, ex);
    await this.events.emit(ex, { merchantId, name: "update_transaction_settled", record });
  }

  /** GET /query/statement/v3/ach-rejects: the returns done within the range, oldest first, and their summary. */
  async report(
    merchantId: string,
    range: repo.DateRange,
    page: PageRequest,
  ): Promise<{ rows: AchReject[]; total: number; summary: AchRejectSummary }> {
    const totals = await repo.returnedTotals(this.db, merchantId, range);
    const returns = await repo.listReturned(this.db, merchantId, range, page.perPage, page.offset);
    const rows: AchReject[] = [];
    for (const entry of returns) {
      const original = await this.transactions.getRow(this.db, merchantId, entry.transaction_id);
      const adjustments = await adjustmentsOfTransaction(this.db, merchantId, entry.transaction_id);
      const returned = adjustments.find((a) => a.dedupe_key === `ach_return:${entry.transaction_id}`);
      const fee = adjustments.find((a) => a.dedupe_key === `return_fee:${entry.transaction_id}`);
      const timing = JSON.parse(returned?.meta ?? "{}") as { timing?: AchReject["ach_reject_transaction_timing"] };
      rows.push({
        ach_reject_transaction_id: entry.void_id!,
        ach_reject_transaction_created_at: entry.returned_at!,
        ach_reject_transaction_amount: centsToNumber(original.total_cents),
        ach_reject_transaction_timing: timing.timing ?? "post_payout",
        original_transaction_id: original.id,
        original_transaction_created_at: original.created_at,
        original_transaction_amount: centsToNumber(original.total_cents),
        deposit_id: returned?.deposit_id ?? null,
        ach_reject_fee_id: fee?.id ?? null,
        ach_reject_fee_amount: centsToNumber(fee ? -Number(fee.amount_cents) : 0),
        ach_reject_fee_deducted_at: fee?.effective_at ?? null,
        ach_reject_code: entry.code,
        ach_reject_reason: ACH_RETURN_REASONS[entry.code as AchReturnCode] ?? entry.code,
      });
    }
    return {
      rows,
      total: totals.count,
      summary: {
        ach_reject_transaction_count: totals.count,
        ach_reject_transaction_amount: centsToNumber(totals.amountCents),
        original_transaction_amount: centsToNumber(totals.amountCents),
        ach_reject_fee_amount: centsToNumber(totals.feeCents),
      },
    };
  }
}
