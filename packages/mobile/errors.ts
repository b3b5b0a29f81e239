import { API_ERROR_STATUS, type ApiErrorCode } from "../rules/codes";

/** Failures only a client can have: the sandbox never answers with these. */
export type SdkErrorCode =
  /** The sandbox could not be reached (connection refused, offline, DNS, CORS refused); retried first. */
  | "network_error"
  /** No answer within `timeoutMs`; retried first. */
  | "timeout"
  /** The caller's `AbortSignal` cancelled the request. */
  | "cancelled"
  /** The answer was not the documented JSON (a proxy's HTML error page, a truncated body, a record without id). */
  | "invalid_response";

/** Every code a `PaymentError` can carry: the sandbox's closed `ApiErrorCode` union plus the SDK's own. */
export type PaymentErrorCode = ApiErrorCode | SdkErrorCode;

export const SDK_ERROR_CODES: readonly SdkErrorCode[] = ["network_error", "timeout", "cancelled", "invalid_response"];

/**
 * An expected failure of tokenize, delivered as a value (never thrown).
 * @example
 * if (!response.ok && response.error.code === "validation_error") showErrors(response.error.fields);
 */
export interface PaymentError {
  readonly name: "PaymentError";
  readonly code: PaymentErrorCode;
  /** A sentence to show or log; for validation errors, the first field message. */
  readonly message: string;
  /**
   * validation_error: messages per field, keyed by the CreditCard / BankAccount property
   * (`cardNumber`, `bankRouting`, ...). Keys the SDK does not know are kept as the server sent them.
   */
  readonly fields?: Readonly<Record<string, readonly string[]>>;
  /** The HTTP status when the sandbox answered (absent for client-side validation and network failures). */
  readonly status?: number;
  /** rate_limited: seconds to wait, from the Retry-After header. */
  readonly retryAfterSeconds?: number;
  /** The sandbox's request id (`X-Request-Id`), to find the request in its log. */
  readonly requestId?: string;
}

export function paymentError(
  code: PaymentErrorCode,
  message: string,
  extra: Omit<PaymentError, "name" | "code" | "message"> = {},
): PaymentError {
  const error: PaymentError = { name: "PaymentError", code, message };
  for (const [key, value] of Object.entries(extra)) {
    if (value !== undefined) (error as unknown as Record<string, unknown>)[key] = value;
  }
  return Object.freeze(error);
}

/** True for a code of the sandbox's error envelope. */
export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  // Not Object.hasOwn: older Hermes (React Native) lacks it.
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(API_ERROR_STATUS, value);
}

/** A readable name of what a caller passed, for "expected X, got Y" messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const name = (value as object).constructor?.name;
    return name && name !== "Object" ? `a ${name}` : "a plain object";
  }
  // Never the value itself: it could be a card number.
  return typeof value;
}
