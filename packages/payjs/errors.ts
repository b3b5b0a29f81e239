/**
 * PayJsError: the one rejection of showCardForm() and pay(). Its code is a closed union (the
 * API's codes plus the library's own, see types.ts); expected failures are these values,
 * misuse of the API is a TypeError thrown at once.
 */
import type { ApiErrorBody, DeclineCode } from "../rules/codes";
import type {
  Invoice,
  PayJsError as PublicPayJsError,
  PayJsErrorCode,
  PayJsErrorFields,
  PayJsLibraryErrorCode,
} from "./types";

export const LIBRARY_ERROR_CODES = [
  "missing_container",
  "unknown_token",
  "frame_timeout",
  "network_error",
  "form_not_ready",
  "payment_in_progress",
] as const satisfies readonly PayJsLibraryErrorCode[];

/** The API's codes a PayJsError may carry as they are; anything else from the wire is a network_error. */
const API_CODES: ReadonlySet<string> = new Set([
  "validation_error",
  "unauthenticated",
  "forbidden",
  "not_found",
  "idempotency_conflict",
  "payment_declined",
  "rate_limited",
  "payload_too_large",
  "malformed_json",
  "invalid_state",
  "internal_error",
  "service_unavailable",
] satisfies PayJsErrorCode[]);

/** The library's own messages, written once (tests compare against them). */
export const LIBRARY_MESSAGES = {
  missingOptions: "showCardForm() needs new PayJs(token, { number: { id }, cvv: { id } }).",
  missingContainer: (id: string) => `No element with id "${id}" to insert the card frame into.`,
  unknownToken: "The web payments token is not known to the sandbox.",
  frameTimeout: (seconds: number) => `The card frames did not load within ${seconds} seconds.`,
  frameNoAnswer: "The card frame did not answer.",
  network: (url: string) => `Could not reach the sandbox at ${url}.`,
  badResponse: (status: number) => `The sandbox answered ${status} with a body that is not its API.`,
  formNotReady: "Call showCardForm() and wait for it before pay() with method card.",
  inProgress: "A payment of this PayJs instance is already running.",
  /** console warnings: the page goes on. */
  unknownEvent: (name: string) =>
    `PayJs: on() ignored the unknown event ${JSON.stringify(name)}; the events are card_form_complete, card_form_uncomplete and card_form_incomplete.`,
  unknownInputType: (field: string, type: string) =>
    `PayJs: options.${field}.type ${JSON.stringify(type)} is not one of text, tel, number, password; the field uses tel.`,
  styleDropped: (field: string, property: string) =>
    `PayJs: options.${field}.style: "${property}" is not an allowed style (or its value is not) and was dropped.`,
} as const;

/** A decline's error reads as its invoice too (see the constructor). */
export interface PayJsError extends Partial<Omit<Invoice, keyof Error>> {}

export class PayJsError extends Error {
  override readonly name = "PayJsError" as const;
  // `declare`: no own property unless given, so an error without fields has no `fields` key.
  declare readonly fields?: PayJsErrorFields;
  declare readonly invoice?: Invoice;
  declare readonly declineCode?: DeclineCode;
  declare readonly retryable?: boolean;
  constructor(
    readonly code: PayJsErrorCode,
    message: string,
    extra: { fields?: PayJsErrorFields; invoice?: Invoice; declineCode?: DeclineCode; retryable?: boolean } = {},
  ) {
    super(message);
    if (extra.fields) (this as { fields?: PayJsErrorFields }).fields = extra.fields;
    if (extra.declineCode !== undefined) (this as { declineCode?: DeclineCode }).declineCode = extra.declineCode;
    if (extra.retryable !== undefined) (this as { retryable?: boolean }).retryable = extra.retryable;
    if (extra.invoice) {
      (this as { invoice?: Invoice }).invoice = extra.invoice;
      // The live library rejects a declined pay() with the invoice itself, and its pages read
      // err.child_transactions[0].message: the invoice's members are here too (not enumerable,
      // so the error's documented shape and toJSON() stay as they are).
      for (const [key, value] of Object.entries(extra.invoice)) {
        if (!(key in this)) Object.defineProperty(this, key, { value, enumerable: false });
      }
    }
  }

  /** A plain object of the documented members (what structured clone and JSON keep). */
  toJSON(): {
    name: "PayJsError";
    code: PayJsErrorCode;
    message: string;
    fields?: PayJsErrorFields;
    invoice?: Invoice;
    declineCode?: DeclineCode;
    retryable?: boolean;
  } {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      fields: this.fields,
      invoice: this.invoice,
      declineCode: this.declineCode,
      retryable: this.retryable,
    };
  }
}

// The implementation must stay assignable to what /payjs.d.ts promises.
PayJsError satisfies typeof PublicPayJsError;

/**
 * The PayJsError of an API answer: its envelope's code and message, `errors` as fields, the
 * invoice of a decline. A 401 on a public route means the token is unknown.
 */
export function errorFromResponse(status: number, body: unknown): PayJsError {
  const envelope = body as Partial<ApiErrorBody> | null;
  if (!envelope || typeof envelope !== "object" || typeof envelope.message !== "string") {
    return new PayJsError("network_error", LIBRARY_MESSAGES.badResponse(status));
  }
  if (status === 401) return new PayJsError("unknown_token", LIBRARY_MESSAGES.unknownToken);
  const code = typeof envelope.code === "string" && API_CODES.has(envelope.code) ? envelope.code : "internal_error";
  const extra: { fields?: PayJsErrorFields; invoice?: Invoice; declineCode?: DeclineCode; retryable?: boolean } = {};
  if (envelope.errors && typeof envelope.errors === "object") extra.fields = envelope.errors;
  if (envelope.invoice && typeof envelope.invoice === "object") extra.invoice = envelope.invoice as Invoice;
  if (code === "payment_declined" && typeof envelope.decline_code === "string") {
    extra.declineCode = envelope.decline_code as DeclineCode;
    extra.retryable = envelope.retryable === true;
  }
  return new PayJsError(code as PayJsErrorCode, envelope.message, extra);
}
