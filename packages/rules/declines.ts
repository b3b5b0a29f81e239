/**
 * Why the simulated processor declines a payment: one closed catalog of decline codes, shared by
 * the server (the transaction's `decline_code`, the 402 envelope), payjs.js (PayJsError) and the
 * mobile SDK. Each reason has the message a real processor gives and whether a retry can succeed.
 * docs/testing-failures.md lists them with their test cards and accounts.
 */
import type { DeclineCode } from "./codes";

export type { DeclineCode };

export interface DeclineReason {
  /** The processor's message: the transaction's `message` and the 402's `message`. */
  readonly message: string;
  /** The same request may succeed when retried later (with the same Idempotency-Key). */
  readonly retryable: boolean;
  /** Which payment methods the processor declines this way. */
  readonly method: "card" | "bank";
  /** What it means for the integrator, in a few words. */
  readonly description: string;
}

export const DECLINE_REASONS: { readonly [C in DeclineCode]: DeclineReason } = {
  decline: {
    message: "Your card was declined.",
    retryable: false,
    method: "card",
    description: "A generic decline: the issuer gives no reason",
  },
  insufficient_funds: {
    message: "Insufficient funds.",
    retryable: false,
    method: "card",
    description: "The account has not enough funds or credit; ask for another card",
  },
  lost_card: {
    message: "The card has been reported lost.",
    retryable: false,
    method: "card",
    description: "Reported lost; never retry it",
  },
  stolen_card: {
    message: "The card has been reported stolen.",
    retryable: false,
    method: "card",
    description: "Reported stolen; never retry it",
  },
  expired_card: {
    message: "The card has expired.",
    retryable: false,
    method: "card",
    description: "The issuer says the card has expired; ask for a new one",
  },
  incorrect_cvv: {
    message: "The card's security code (CVV) is incorrect.",
    retryable: false,
    method: "card",
    description: "The CVV does not match; ask the customer to type it again",
  },
  incorrect_number: {
    message: "The card number is incorrect.",
    retryable: false,
    method: "card",
    description: "The issuer knows no such card; ask the customer to check the number",
  },
  do_not_honor: {
    message: "Do not honor: the issuer declined the payment.",
    retryable: false,
    method: "card",
    description: "The issuer declined without a reason; the customer should call their bank",
  },
  pickup_card: {
    message: "Pick up card: the issuer asks that the card be kept.",
    retryable: false,
    method: "card",
    description: "The issuer wants the card retained (often lost or stolen); never retry it",
  },
  suspected_fraud: {
    message: "The payment was declined as suspected fraud.",
    retryable: false,
    method: "card",
    description: "The issuer suspects fraud; do not tell the customer more, do not retry",
  },
  card_velocity_exceeded: {
    message: "The card has exceeded its activity limit.",
    retryable: false,
    method: "card",
    description: "Too many payments or too much spent on the card recently",
  },
  restricted_card: {
    message: "The card cannot be used for this payment (restricted card).",
    retryable: false,
    method: "card",
    description: "The card may not be used here (region, merchant type)",
  },
  invalid_amount: {
    message: "The amount is not valid for this card.",
    retryable: false,
    method: "card",
    description: "The issuer refuses this amount (too large, or not allowed)",
  },
  issuer_unavailable: {
    message: "The card issuer could not be reached; please try again.",
    retryable: true,
    method: "card",
    description: "The issuer did not answer; retry later with the same Idempotency-Key",
  },
  processing_error: {
    message: "A processing error occurred; please try again.",
    retryable: true,
    method: "card",
    description: "The processor failed; retry with the same Idempotency-Key",
  },
  incorrect_zip: {
    message: "The postal code does not match the card's billing address.",
    retryable: false,
    method: "card",
    description: "AVS: the postal code does not match and the merchant's avs_zip check declines it",
  },
  incorrect_address: {
    message: "The street address does not match the card's billing address.",
    retryable: false,
    method: "card",
    description: "AVS: the street address does not match and the merchant's avs_street check declines it",
  },
  R01: {
    message: "R01: Insufficient funds.",
    retryable: false,
    method: "bank",
    description: "ACH return R01: the account has not enough funds",
  },
  R02: {
    message: "R02: Account closed.",
    retryable: false,
    method: "bank",
    description: "ACH return R02: the account was closed; ask for another",
  },
  R03: {
    message: "R03: No account, or unable to locate the account.",
    retryable: false,
    method: "bank",
    description: "ACH return R03: the account number matches no account",
  },
  R04: {
    message: "R04: Invalid account number.",
    retryable: false,
    method: "bank",
    description: "ACH return R04: the account number's structure is not valid",
  },
};

/** Every decline code, in the catalog's order. */
export const DECLINE_CODES = Object.keys(DECLINE_REASONS) as readonly DeclineCode[];

const CODES: ReadonlySet<string> = new Set(DECLINE_CODES);

/** True for a code of the catalog. */
export function isDeclineCode(value: unknown): value is DeclineCode {
  return typeof value === "string" && CODES.has(value);
}
