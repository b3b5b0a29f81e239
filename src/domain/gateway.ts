/**
 * The simulated gateway: decides each authorization from the payment method's test outcome,
 * with the messages and codes a real processor answers (the catalog of packages/rules/declines.ts).
 */
import { randomDigits } from "../lib/crypto";
import type { Outcome } from "../../packages/rules/test-data";
import { DECLINE_CODES, DECLINE_REASONS, isDeclineCode, type DeclineCode } from "../../packages/rules/declines";
import { streetCheck, zipCheck, type CheckResult } from "../../packages/rules/checks";

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

/** What the issuer's checks answered on one card authorization (packages/rules/checks.ts). */
export interface CheckResults {
  street: CheckResult;
  zip: CheckResult;
  cvv: CheckResult;
}

/** The merchant's AVS settings: a check that is on declines its mismatch; one that is off only records it. */
export interface AvsPolicy {
  avsZip: boolean;
  avsStreet: boolean;
}

/** The checks of a card payment method: its stored address, and the CVV result kept at tokenize. */
export function checksOf(pm: {
  address_1: string | null;
  address_zip: string | null;
  cvv_result: CheckResult | null;
}): CheckResults {
  return { street: streetCheck(pm.address_1), zip: zipCheck(pm.address_zip), cvv: pm.cvv_result ?? "not_provided" };
}

/** True when a check failed that a policy may decline: only then is the merchant's policy needed. */
export function hasMismatch(checks: CheckResults): boolean {
  return checks.street === "no_match" || checks.zip === "no_match" || checks.cvv === "no_match";
}

/**
 * The decline the checks cause on an authorization the issuer approved: a CVV that does not
 * match is declined by the issuer; an address mismatch only when the merchant checks it.
 */
export function checkDecline(checks: CheckResults, policy: AvsPolicy): DeclineCode | null {
  if (checks.cvv === "no_match") return "incorrect_cvv";
  if (policy.avsZip && checks.zip === "no_match") return "incorrect_zip";
  if (policy.avsStreet && checks.street === "no_match") return "incorrect_address";
  return null;
}

/** The AVS result codes real gateways report (Visa's letters), with their messages. */
export const AVS_RESPONSES = {
  Y: "Street address and postal code match.",
  A: "Street address matches; postal code does not.",
  Z: "Postal code matches; street address does not.",
  B: "Street address matches; postal code not verified.",
  P: "Postal code matches; street address not verified.",
  N: "Neither the street address nor the postal code matches.",
  U: "Address information is unavailable.",
} as const;

/** The CVV result codes real gateways report, with their messages. */
export const CVV_RESPONSES = {
  M: "CVV matches.",
  N: "CVV does not match.",
  U: "The issuer could not verify the CVV.",
  P: "No CVV was given; not processed.",
} as const;

/** The AVS code of a street and a postal code result. */
export function avsResponse(street: CheckResult, zip: CheckResult): keyof typeof AVS_RESPONSES {
  if (street === "match") return zip === "match" ? "Y" : zip === "no_match" ? "A" : "B";
  if (zip === "match") return street === "no_match" ? "Z" : "P";
  if (street === "no_match" || zip === "no_match") return "N";
  return "U";
}

/** The CVV code of a CVV result. */
export function cvvResponse(cvv: CheckResult): keyof typeof CVV_RESPONSES {
  return cvv === "match" ? "M" : cvv === "no_match" ? "N" : cvv === "unavailable" ? "U" : "P";
}
