/**
 * The surcharge of a transaction's family (docs/contract.md "Surcharging"): how much of what a
 * charge or captured pre_auth moved is surcharge, and the share each capture, void and refund
 * carries. Every share is computed from the parent row alone, cumulatively (src/domain/surcharge.ts
 * surchargeShare), so the refunds of a charge return exactly its surcharge once it is refunded in
 * full, whatever the partial amounts were.
 */
import type { TransactionRow } from "../../storage/repositories/transactions";
import { surchargeShare } from "../../domain/surcharge";
import { moneyCents } from "./records";

type SurchargeColumns = Pick<
  TransactionRow,
  "type" | "total_cents" | "surcharge_cents" | "captured_cents" | "total_refunded_cents"
>;

/** The surcharge in what a top-level row moved: a charge's all; a captured pre_auth's share of its capture. */
export function movedSurchargeCents(row: SurchargeColumns): number {
  if (row.type === "charge") return row.surcharge_cents;
  if (row.type === "pre_auth") return surchargeShare(row.surcharge_cents, row.total_cents, row.captured_cents);
  return 0;
}

/** The surcharge a capture of `cents` out of the pre_auth's authorized total carries. */
export function captureSurchargeCents(row: SurchargeColumns, cents: number): number {
  return surchargeShare(row.surcharge_cents, row.total_cents, cents);
}

/** The surcharge the refunds of this row have returned so far. */
export function refundedSurchargeCents(row: SurchargeColumns): number {
  return surchargeShare(movedSurchargeCents(row), moneyCents(row), row.total_refunded_cents);
}

/** The surcharge a refund of `cents` returns now: the share after it less the share before. */
export function refundSurchargeCents(row: SurchargeColumns, cents: number): number {
  const moved = movedSurchargeCents(row);
  const money = moneyCents(row);
  return surchargeShare(moved, money, row.total_refunded_cents + cents) - refundedSurchargeCents(row);
}
