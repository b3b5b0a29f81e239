/**
 * The simulated processor's fees, in integer cents, rounded half up to the cent per transaction.
 *
 * - card: 2.9% of the amount + 0.30, on every settled sale (charge or capture);
 * - ACH (bank): 0.8% of the amount, at most 5.00, on every settled sale;
 * - refunds carry no fee of their own, and the fee of the sale they refund is not returned;
 * - credits (money sent with no prior charge) carry no fee either.
 *
 * @example cardFeeCents(1000) // 59: 29.0 + 30
 * @example achFeeCents(100_000) // 500: 0.8% of 1000.00 is 8.00, capped at 5.00
 */
export const CARD_FEE_PER_MILLE = 29;
export const CARD_FEE_FIXED_CENTS = 30;
export const ACH_FEE_PER_MILLE = 8;
export const ACH_FEE_CAP_CENTS = 500;

/** `amount × perMille / 1000`, half a cent and more rounding up; integers only, so never a float error. */
function perMille(cents: number, rate: number): number {
  return Math.floor((cents * rate + 500) / 1000);
}

export function cardFeeCents(cents: number): number {
  return perMille(cents, CARD_FEE_PER_MILLE) + CARD_FEE_FIXED_CENTS;
}

export function achFeeCents(cents: number): number {
  return Math.min(ACH_FEE_CAP_CENTS, perMille(cents, ACH_FEE_PER_MILLE));
}

/** The fee of one settled transaction: sales pay their method's fee, refunds and credits none. */
export function feeCents(method: "card" | "bank", type: string, cents: number): number {
  if (type === "refund" || type === "credit") return 0;
  return method === "card" ? cardFeeCents(cents) : achFeeCents(cents);
}

/** What the processor charges the merchant for each ACH return (an adjustment of its own, `return_fee`). */
export const ACH_RETURN_FEE_CENTS = 1500;

/** What the processor charges the merchant for each dispute opened (an adjustment of its own, `dispute_fee`; never given back). */
export const DISPUTE_FEE_CENTS = 2000;
