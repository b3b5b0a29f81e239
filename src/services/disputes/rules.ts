/**
 * The rules of a dispute's life on the sandbox clock (docs/settlement.md, "Disputes"): when it opens, how long
 * the merchant has to answer, when the answer is decided and by what, and the messages of the
 * requests it refuses.
 */
import { DAY_MS } from "../settlement";

/** The merchant has this many days from the opening to answer (respond_by). */
export const RESPOND_DAYS = 10;
/** Submitted evidence is decided at the first midnight UTC this many days after the submission. */
export const DECISION_DAYS = 10;

/** What, in an evidence file (its name or bytes) or the submitted notes, wins or loses a dispute. */
export const WINNING_EVIDENCE = "winning_evidence";
export const LOSING_EVIDENCE = "losing_evidence";

export const DISPUTE_MESSAGES = {
  closed: (status: string) =>
    `This dispute is ${status === "EVIDENCE_UPLOADED" ? "submitted and awaiting its decision" : `closed (${status})`}: its evidence can no longer change.`,
  submitted: (status: string) =>
    `This dispute is ${status === "EVIDENCE_UPLOADED" ? "already submitted" : `closed (${status})`}: it cannot be submitted again.`,
  pastDue: (respondBy: string) =>
    `The response to this dispute was due by ${respondBy} (sandbox time): it can no longer be answered.`,
  nothingToSubmit:
    "Nothing to submit: upload evidence with POST /file/dispute, or give notes, before submitting the dispute.",
  notEvidence: "Evidence file not found.",
  bank: "Bank (ACH) payments cannot be disputed: only card payments are (an ACH payment is returned instead).",
  notDisputable:
    "Only a settled card charge (or captured pre_auth) that succeeded, was not voided and still holds money can be disputed.",
  alreadyDisputed: "This transaction is already disputed: a payment is disputed once.",
} as const;

/**
 * The decision on submitted evidence: lost when any of it says `losing_evidence`, won when any
 * says `winning_evidence`, lost otherwise (the issuer keeps the cardholder's side unless the
 * evidence is compelling).
 */
export function decide(evidence: readonly (string | Uint8Array)[]): "won" | "lost" {
  const texts = evidence.map((item) => (typeof item === "string" ? item : new TextDecoder().decode(item)));
  if (texts.some((text) => text.includes(LOSING_EVIDENCE))) return "lost";
  return texts.some((text) => text.includes(WINNING_EVIDENCE)) ? "won" : "lost";
}

/** The first midnight UTC `days` days after `ms`. */
export function midnightAfterDays(ms: number, days: number): number {
  return Math.ceil((ms + days * DAY_MS) / DAY_MS) * DAY_MS;
}
