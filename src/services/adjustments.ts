/**
 * Deposit adjustments (src/domain/adjustments.ts): the one way a feature moves a merchant's money
 * besides a sale or a refund. A feature calls `record` inside its unit of work with a signed amount
 * and the sandbox time it takes effect; the settlement jobs (./settlement.ts) hand it to the first
 * deposit landing at or after that time. Vocabulary: `record` (the domain verb), `ofTransaction`,
 * `ofDeposits`, `recent` (the dashboard).
 */
import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/adjustments";
import type { AdjustmentRow } from "../storage/repositories/adjustments";
import type { AdjustmentKind } from "../domain/adjustments";
import { formatTimestamp } from "../domain/time";

export type { AdjustmentRow } from "../storage/repositories/adjustments";

export interface AdjustmentInput {
  kind: AdjustmentKind;
  /** Which deposits carry it: a card payment's adjustments go with card deposits, a bank one's with ACH deposits. */
  method: "card" | "bank";
  /** Signed cents: negative withdraws from the merchant, positive gives back. */
  amountCents: number;
  /** The (top-level) transaction it concerns. */
  transactionId?: string | null;
  /** The record it comes from when that is not the transaction: a return's void child, a dispute. */
  sourceId?: string | null;
  /** A return code (R01), a dispute reason. */
  code?: string | null;
  description?: string;
  meta?: Record<string, unknown>;
  /** When it takes effect (sandbox time); the first deposit landing at or after it picks it up. */
  effectiveAt: Date;
  /**
   * Makes it happen once: a second `record` with the same key (per merchant) changes nothing and
   * answers the first. Default: `kind:sourceId` (or `kind:transactionId`).
   */
  key?: string;
}

export class AdjustmentService {
  constructor(private readonly db: Database) {}

  /**
   * Records an adjustment in the caller's unit of work, once per key: answers the stored row and
   * whether this call made it.
   */
  async record(
    ex: Executor,
    merchantId: string,
    input: AdjustmentInput,
  ): Promise<{ row: AdjustmentRow; created: boolean }> {
    if (!Number.isSafeInteger(input.amountCents)) {
      throw new RangeError(`expected an amount in whole cents, got ${input.amountCents}`);
    }
    const key = input.key ?? `${input.kind}:${input.sourceId ?? input.transactionId ?? ""}`;
    const at = formatTimestamp(input.effectiveAt);
    const created = await repo.insertAdjustment(ex, {
      id: crypto.randomUUID(),
      merchant_id: merchantId,
      dedupe_key: key,
      kind: input.kind,
      method: input.method,
      amount_cents: input.amountCents,
      transaction_id: input.transactionId ?? null,
      source_id: input.sourceId ?? null,
      code: input.code ?? null,
      description: input.description ?? "",
      meta: JSON.stringify(input.meta ?? {}),
      effective_at: at,
      created_at: at,
    });
    return { row: (await repo.findAdjustmentByKey(ex, merchantId, key))!, created };
  }

  /** The adjustments concerning a transaction, oldest first. */
  ofTransaction(merchantId: string, transactionId: string, ex: Executor = this.db): Promise<AdjustmentRow[]> {
    return repo.adjustmentsOfTransaction(ex, merchantId, transactionId);
  }

  /** The adjustments each deposit picked up, oldest first. */
  ofDeposits(
    merchantId: string,
    depositIds: readonly string[],
    ex: Executor = this.db,
  ): Promise<Map<string, AdjustmentRow[]>> {
    return repo.adjustmentsOfDeposits(ex, merchantId, depositIds);
  }

  /** The merchant's newest adjustments, newest first (the dashboard's deposits page). */
  recent(merchantId: string, limit: number): Promise<AdjustmentRow[]> {
    return repo.recentAdjustments(this.db, merchantId, limit);
  }
}
