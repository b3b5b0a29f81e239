/**
 * Deposit adjustments: what moves a merchant's money besides sales and refunds. Each is a signed
 * amount (negative withdraws from the merchant, positive gives back) that takes effect at a sandbox
 * time and is picked up by the next deposit (docs/settlement.md, "Adjustments").
 */

/** The kinds of adjustment; a feature that moves money another way appends its own. */
export const ADJUSTMENT_KINDS = [
  /** An ACH debit the customer's bank returned (R01 …): the amount of the returned payment, withdrawn. */
  "ach_return",
  /** The processor's fee for an ACH return (src/domain/fees.ts ACH_RETURN_FEE_CENTS), withdrawn. */
  "return_fee",
  /** A disputed card payment: its amount, withdrawn when the dispute opens. */
  "dispute",
  /** The processor's fee for a dispute, withdrawn. */
  "dispute_fee",
  /** A dispute won: the disputed amount given back. */
  "dispute_reversal",
] as const;

export type AdjustmentKind = (typeof ADJUSTMENT_KINDS)[number];
