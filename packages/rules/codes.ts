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
  | "internal_error";

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
};

/** The body of every non-2xx answer. */
export interface ApiErrorBody {
  message: string;
  code: ApiErrorCode;
  errors?: Record<string, string[]>;
  [context: string]: unknown;
}
