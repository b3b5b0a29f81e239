/**
 * The simulated gateway: decides each authorization from the payment method's test outcome,
 * with the messages and codes a real processor answers (the catalog of packages/rules/declines.ts).
 */
import { randomDigits } from "../lib/crypto";
import type { Outcome } from "../../packages/rules/test-data";
import { DECLINE_CODES, DECLINE_REASONS, isDeclineCode, type DeclineCode } from "../../packages/rules/declines";

export interface Authorization {
  success: boolean;
  /** null on approval; the decline reason otherwise. */
  message: string | null;
  /** A machine-readable decline reason, null on approval. */
  declineCode: DeclineCode | null;
  authId: string | null;
  issuerAuthCode: string | null;
  /** The same request may succeed when retried. */
  retryable: boolean;
}

/** The processor's message for each decline code (tests compare against these). */
export const DECLINE_MESSAGES = Object.fromEntries(
  DECLINE_CODES.map((code) => [code, DECLINE_REASONS[code].message]),
) as Record<DeclineCode, string>;

/** A bank account's generic decline (any account at the test routing number that is not listed). */
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
    message: method === "bank" && outcome === "decline" ? BANK_DECLINE_MESSAGE : DECLINE_MESSAGES[outcome],
    declineCode: outcome,
    authId: null,
    issuerAuthCode: null,
    retryable: DECLINE_REASONS[outcome].retryable,
  };
}

/** A 402's reason members from a declined transaction's `decline_code`. */
export function declineFields(code: string | null): { decline_code: string; retryable: boolean } {
  const known = code !== null && isDeclineCode(code);
  return { decline_code: code ?? "decline", retryable: known ? DECLINE_REASONS[code].retryable : false };
}
