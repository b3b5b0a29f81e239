/**
 * The simulated gateway: decides each authorization from the payment method's test outcome,
 * with the messages and codes a real processor answers.
 */
import { randomDigits } from "../lib/crypto";
import type { Outcome } from "../../packages/rules/test-data";

export interface Authorization {
  success: boolean;
  /** null on approval; the decline reason otherwise. */
  message: string | null;
  /** A machine-readable decline reason, null on approval. */
  declineCode: Exclude<Outcome, "approve"> | null;
  authId: string | null;
  issuerAuthCode: string | null;
  /** The same request may succeed when retried. */
  retryable: boolean;
}

export const DECLINE_MESSAGES: Record<Exclude<Outcome, "approve">, string> = {
  decline: "Your card was declined.",
  insufficient_funds: "Insufficient funds.",
  expired_card: "The card has expired.",
  incorrect_cvv: "The card's security code (CVV) is incorrect.",
  processing_error: "A processing error occurred; please try again.",
};

export const BANK_DECLINE_MESSAGE = "The bank account was declined (R01: insufficient funds).";

export function authorize(outcome: Outcome, method: "card" | "bank"): Authorization {
  if (outcome === "approve") {
    return {
      success: true,
      message: null,
      declineCode: null,
      authId: crypto.randomUUID(),
      issuerAuthCode: method === "card" ? randomDigits(6) : null,
      retryable: false,
    };
  }
  return {
    success: false,
    message: method === "bank" ? BANK_DECLINE_MESSAGE : DECLINE_MESSAGES[outcome],
    declineCode: outcome,
    authId: null,
    issuerAuthCode: null,
    retryable: outcome === "processing_error",
  };
}
