/**
 * The rules of the money operations after a charge (capture, void, refund): why one is refused.
 */

/** The operations on a transaction after the charge. */
export type MoneyAction = "capture" | "void" | "refund";

/**
 * Why an operation is refused: every wrong-state 422 (`invalid_state`) says what to do instead.
 * Tests compare against these constants.
 */
export const STATE_MESSAGES = {
  child: (type: string, parentId: string, action: MoneyAction) =>
    `This transaction is a ${type} of transaction ${parentId}; ${action} the original transaction instead.`,
  failed: (action: MoneyAction) => `This transaction failed, so it cannot be ${pastTense(action)}.`,
  voided: (action: MoneyAction) => `This transaction has been voided, so it cannot be ${pastTense(action)}.`,
  captureNotPreAuth: "Only a pre_auth transaction can be captured; this one is a charge.",
  alreadyCaptured: "This pre_auth has already been captured; a pre_auth is captured once.",
  voidSettled: (id: string) =>
    `This transaction has settled, so it can no longer be voided; refund it instead (POST /transaction/${id}/refund).`,
  refundUnsettled: (id: string) =>
    `This transaction has not settled yet, so it cannot be refunded; void it instead (POST /transaction/${id}/void).`,
  refundUncaptured: (id: string) =>
    `This pre_auth was never captured, so there is nothing to refund; void it to release the authorization (POST /transaction/${id}/void).`,
  fullyRefunded: "This transaction has already been refunded in full.",
  captureTooMuch: (authorized: string) => `The total may not be greater than ${authorized}, the amount authorized.`,
  refundTooMuch: (remaining: string) =>
    `The total may not be greater than ${remaining}, the amount of this transaction not yet refunded.`,
  credit: (action: MoneyAction) =>
    `This transaction is a credit: money sent with no prior charge, so it cannot be ${pastTense(action)}.`,
  cardExpired: "The card on this payment method has expired.",
  voidPartial: (full: string) =>
    `This transaction has not settled, so it can only be voided in full (${full}); omit the total or send ${full}.`,
} as const;

function pastTense(action: MoneyAction): string {
  return action === "capture" ? "captured" : action === "void" ? "voided" : "refunded";
}

/** "10.00": how amounts appear in messages. */
export function amount(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** Whether a card expiring at the end of month MMYY has expired at `now` (UTC). */
export function cardExpired(cardExp: string, now: Date): boolean {
  const month = Number(cardExp.slice(0, 2));
  const year = 2000 + Number(cardExp.slice(2));
  return year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
}
