/**
 * The simulated issuer's address (AVS) and security code (CVV) checks: which test postal codes,
 * street numbers and CVVs fail them (docs/testing-failures.md). Any other value matches, so every
 * existing test keeps approving. Only the results are stored, never the CVV.
 */

/** One check's result, as the processor reports it. */
export type CheckResult = "match" | "no_match" | "unavailable" | "not_provided";

export const CHECK_RESULTS: readonly CheckResult[] = ["match", "no_match", "unavailable", "not_provided"];

/** The documented test values that do not match. */
export const AVS_TEST_VALUES = {
  /** This postal code does not match the card's billing address. */
  zipNoMatch: "20000",
  /** The issuer cannot verify this postal code. */
  zipUnavailable: "20001",
  /** A street address whose number is 200 does not match. */
  streetNoMatch: "200 Main Street",
  /** The issuer cannot verify a street address whose number is 201. */
  streetUnavailable: "201 Main Street",
  /** This CVV does not match (Amex: 2000). */
  cvvNoMatch: "200",
  /** The issuer cannot verify this CVV (Amex: 2010). */
  cvvUnavailable: "201",
} as const;

function present(value: string | null | undefined): value is string {
  return typeof value === "string" && value.trim() !== "";
}

/** The postal code check of a billing address. */
export function zipCheck(zip: string | null | undefined): CheckResult {
  if (!present(zip)) return "not_provided";
  const code = zip.trim();
  if (code === AVS_TEST_VALUES.zipNoMatch) return "no_match";
  if (code === AVS_TEST_VALUES.zipUnavailable) return "unavailable";
  return "match";
}

/** The street check of a billing address, decided by its house number. */
export function streetCheck(address1: string | null | undefined): CheckResult {
  if (!present(address1)) return "not_provided";
  const number = /^\s*(\d+)\b/.exec(address1)?.[1];
  if (number === "200") return "no_match";
  if (number === "201") return "unavailable";
  return "match";
}

/** The CVV check: decided at tokenize, where the CVV is seen once and never kept. */
export function cvvCheck(cvv: string | null | undefined): CheckResult {
  if (!present(cvv)) return "not_provided";
  const digits = cvv.trim();
  if (digits === "200" || digits === "2000") return "no_match";
  if (digits === "201" || digits === "2010") return "unavailable";
  return "match";
}
