/**
 * The closed set of error codes the sandbox answers with. One union shared by the
 * server's error envelope, the browser library's PayJsError and the mobile SDK.
 */
export type ApiErrorCode =
  /** 422: a field broke an input rule; `errors` maps each field to its messages. */
  | "validation_error"
  /** 401: no credential, or one that matches no merchant. */
  | "unauthenticated"
  /** 403: a valid credential that may not call this route (the public token on a merchant route). */
  | "forbidden"
  /** 404: no such route or record, or a record of another merchant. */
  | "not_found"
  /** 409: the Idempotency-Key was used before with a different request. */
  | "idempotency_conflict"
  /** 402: the processor declined the payment; the failed record is attached. */
  | "payment_declined"
  /** 429: too many requests; see the Retry-After header. */
  | "rate_limited"
  /** 413: the request body is over 1 MiB. */
  | "payload_too_large"
  /** 400: the body is not valid JSON. */
  | "malformed_json"
  /** 422: the record is not in a state that allows the operation (refund before settlement, ...). */
  | "invalid_state"
  /** 500: a bug in the sandbox; logged with the request id. */
  | "internal_error"
  /** 503: the service is unavailable for a moment (a fault armed with POST /_sandbox/faults); see Retry-After. */
  | "service_unavailable";

/**
 * Why the processor declined a payment: a 402's `decline_code` and the transaction's. The
 * messages and retryability are in packages/rules/declines.ts (docs/testing-failures.md).
 */
export type DeclineCode =
  /** A generic decline: the issuer gives no reason. */
  | "decline"
  /** The account has not enough funds or credit. */
  | "insufficient_funds"
  /** The card is reported lost; never retry it. */
  | "lost_card"
  /** The card is reported stolen; never retry it. */
  | "stolen_card"
  /** The issuer says the card has expired. */
  | "expired_card"
  /** The CVV does not match. */
  | "incorrect_cvv"
  /** The issuer knows no such card number. */
  | "incorrect_number"
  /** The issuer declined without a reason. */
  | "do_not_honor"
  /** The issuer asks that the card be kept; never retry it. */
  | "pickup_card"
  /** The issuer suspects fraud; do not retry. */
  | "suspected_fraud"
  /** Too many payments or too much spent on the card recently. */
  | "card_velocity_exceeded"
  /** The card may not be used for this payment. */
  | "restricted_card"
  /** The issuer refuses this amount. */
  | "invalid_amount"
  /** The issuer did not answer; retryable. */
  | "issuer_unavailable"
  /** The processor failed; retryable. */
  | "processing_error"
  /** AVS: the postal code does not match (declined by the merchant's avs_zip check). */
  | "incorrect_zip"
  /** AVS: the street address does not match (declined by the merchant's avs_street check). */
  | "incorrect_address"
  /** ACH return R01: insufficient funds. */
  | "R01"
  /** ACH return R02: account closed. */
  | "R02"
  /** ACH return R03: no account, or unable to locate it. */
  | "R03"
  /** ACH return R04: invalid account number. */
  | "R04";

export const API_ERROR_STATUS: Record<ApiErrorCode, number> = {
  validation_error: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  payment_declined: 402,
  rate_limited: 429,
  payload_too_large: 413,
  malformed_json: 400,
  invalid_state: 422,
  internal_error: 500,
  service_unavailable: 503,
};

/** The body of every non-2xx answer. */
export interface ApiErrorBody {
  message: string;
  code: ApiErrorCode;
  errors?: Record<string, string[]>;
  [context: string]: unknown;
}
