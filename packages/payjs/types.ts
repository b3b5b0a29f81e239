/**
 * The public API of payjs.js, written once: the library's implementation is checked against
 * these declarations, and GET /payjs.d.ts serves this file (with ApiErrorCode inlined) so
 * integrators type-check against exactly what runs.
 *
 * @example
 * ```ts
 * const payjs = new PayJs("sandbox_web_payments_token", {
 *   number: { id: "card-number", format: "prettyFormat" },
 *   cvv: { id: "card-cvv" },
 * });
 * await payjs.showCardForm();
 * payjs.on("card_form_complete", () => (button.disabled = false));
 * const invoice = await payjs.pay({ method: "card", month: "12", year: "2030", total: 10, ...customer });
 * ```
 */
import type { ApiErrorCode, DeclineCode } from "../rules/codes";
import type { InvoiceMeta, Invoice, PaymentMethod } from "./records";

export type * from "./records";

/** Failures of the library itself (not answered by the API). */
export type PayJsLibraryErrorCode =
  /** showCardForm(): a container id of the options names no element of the page (or no options were given). */
  | "missing_container"
  /** The web payments token matches no merchant of the sandbox. */
  | "unknown_token"
  /** showCardForm(): a card frame did not report ready within 10 seconds; or a frame stopped answering. */
  | "frame_timeout"
  /** The sandbox could not be reached (after retries), or answered something that is not its API. */
  | "network_error"
  /** pay() with method "card" before showCardForm() resolved. */
  | "form_not_ready"
  /** pay() while an earlier pay() of the same PayJs instance is still running. */
  | "payment_in_progress";

/** Every code a PayJsError can carry: the API's error codes plus the library's own. */
export type PayJsErrorCode = ApiErrorCode | PayJsLibraryErrorCode;

/** Field name → messages; the same names and messages the API reports in a 422. */
export type PayJsErrorFields = Record<string, string[]>;

/** How the card number is shown: groups (4-4-4-4, Amex 4-6-5, Diners 4-6-4), digits only, or masked when not focused. */
export type CardFormat = "prettyFormat" | "plainFormat" | "maskedFormat";

/**
 * The kind of input in the frame. Each keeps the card formatting: `tel` (default) and `text`
 * are themselves, `number` becomes a text input with `inputmode="numeric"` (a number input
 * cannot hold "4111 1111"), `password` hides what is typed. Any other value is warned about and
 * treated as `tel`.
 */
export type FieldInputType = "text" | "tel" | "number" | "password";

/**
 * CSS for the frame's input: a declaration string, as the specification types it
 * (`"width: 100%; height: 2em; font-size: 14px"`), or an object (`{ fontSize: "16px" }`,
 * `{ "font-size": "16px" }`). Applied inside the frame only, through an allowlist of text, box,
 * border and colour properties; anything else (`url()`, `expression()`, `@import`, `behavior`,
 * escapes) is dropped with a console warning naming it.
 */
export type FieldStyle = string | Record<string, string>;

export interface NumberFieldOptions {
  /** The id of the element the card number frame is inserted into. */
  id: string;
  placeholder?: string;
  style?: FieldStyle;
  /** Default "tel" (a numeric keyboard on phones). */
  type?: FieldInputType;
  /** Default "prettyFormat". */
  format?: CardFormat;
}

export interface CvvFieldOptions {
  /** The id of the element the CVV frame is inserted into. */
  id: string;
  placeholder?: string;
  style?: FieldStyle;
  /** Default "tel". */
  type?: FieldInputType;
}

/**
 * Card payments need both fields (leaving one out throws a TypeError naming it); bank payments
 * need none: `new PayJs(token, {})`. Members the library does not know are ignored.
 */
export interface PayJsOptions {
  number?: NumberFieldOptions;
  cvv?: CvvFieldOptions;
}

export type CardType = "visa" | "mastercard" | "amex" | "discover" | "jcb" | "diners";

/** The brand as the live library's `cardType` names it. */
export type LiveCardType = "visa" | "master" | "american_express" | "discover" | "diners_club" | "jcb";

export interface FieldState {
  /** Nothing typed. */
  empty: boolean;
  /** As many digits as the brand needs. */
  complete: boolean;
  /** Complete and correct (the number passes Luhn; the CVV has the brand's length). */
  valid: boolean;
}

/** What card_form_complete and card_form_uncomplete (alias card_form_incomplete) callbacks receive. */
export interface CardFormMessage {
  /** Both fields complete and valid. */
  complete: boolean;
  /** The brand of the number typed so far, null while it cannot be told. */
  card_type: CardType | null;
  number: FieldState;
  cvv: FieldState;
  /** The live library's name for the brand (`master`, `american_express`, `diners_club`, …), null while unknown. */
  cardType: LiveCardType | null;
  /** The number is complete and valid (same as `number.valid`). */
  validNumber: boolean;
  /** The CVV has the brand's length (same as `cvv.valid`). */
  validCvv: boolean;
}

/** `card_form_incomplete` is the live library's name for `card_form_uncomplete`; both fire together. */
export type PayJsEventName = "card_form_complete" | "card_form_uncomplete" | "card_form_incomplete";

/**
 * What showCardForm() resolves with. Each setter resolves once the form state reflects the
 * value; calls take effect in call order even when not awaited, and pay() / tokenize() wait for
 * them.
 */
export interface PayJsHandler {
  /** Types a test card number into the number frame (the sandbox accepts only test cards). */
  setTestPan(pan: string): Promise<void>;
  /** Types a CVV into the CVV frame. */
  setTestCvv(cvv: string): Promise<void>;
}

interface CommonDetails {
  /** > 0, at most two decimals. */
  total: number | string;
  /** ≤ 50 characters. */
  firstname: string;
  /** ≤ 50 characters. */
  lastname: string;
  email?: string;
  /** ≥ 10 characters; required without customer_id. */
  phone?: string;
  company?: string;
  /** ≤ 255; required without customer_id, and with the merchant's avs_street. */
  address_1?: string;
  address_2?: string;
  /** ≤ 255; required without customer_id. */
  address_city?: string;
  /** ≤ 2; required without customer_id. */
  address_state?: string;
  /** Required with the merchant's avs_zip. */
  address_zip?: string;
  /** Exactly 3 characters. */
  address_country?: string;
  /** An existing customer of the merchant; the customer fields are then ignored. */
  customer_id?: string;
  /**
   * Pay this open (DRAFT or ATTEMPTED) invoice of the merchant instead of creating one, as the
   * hosted payment page does; `total` must equal its balance due.
   */
  invoice_id?: string;
  meta?: InvoiceMeta;
  /** Prefix of the hosted invoice link in receipts (the invoice id is appended). */
  url?: string;
  /** E-mail a receipt to `email` (default true). */
  send_receipt?: boolean;
  /** false skips the client-side checks (the API still runs them). */
  validate?: boolean;
}

export interface CardExtraDetails extends CommonDetails {
  method: "card";
  /** "01"–"12". */
  month: string;
  /** Four digits, not in the past. */
  year: string;
}

export interface BankExtraDetails extends CommonDetails {
  method: "bank";
  /** The account holder, ≤ 50 characters. */
  person_name: string;
  /** Digits. */
  bank_account: string;
  /** 9 digits with a valid ABA checksum. */
  bank_routing: string;
  bank_type: "checking" | "savings";
  bank_holder_type: "personal" | "business";
  bank_name?: string;
}

/** What pay() takes. */
export type ExtraDetails = CardExtraDetails | BankExtraDetails;

type Tokenizing<T> = Omit<T, "total" | "invoice_id"> & { total?: number | string };

/** What tokenize() takes: pay()'s details without the need for a total (no invoice is made). */
export type TokenizeDetails = Tokenizing<CardExtraDetails> | Tokenizing<BankExtraDetails>;

/**
 * A declined pay()'s error also carries the attempted invoice's members (`child_transactions`,
 * `payment_attempt_message`, `status`, …), as the live library rejects with the invoice itself.
 */
export interface PayJsError extends Partial<Omit<Invoice, keyof Error>> {}

/** Every rejection of showCardForm(), pay() and tokenize(). */
export declare class PayJsError extends Error {
  readonly name: "PayJsError";
  readonly code: PayJsErrorCode;
  /** validation_error: field name → messages. */
  readonly fields?: PayJsErrorFields;
  /** payment_declined: the invoice, status ATTEMPTED, payment_attempt_failed true. */
  readonly invoice?: Invoice;
  /** payment_declined: why the processor declined (`insufficient_funds`, `stolen_card`, `R01`, …). */
  readonly declineCode?: DeclineCode;
  /** payment_declined: whether paying again may succeed (`issuer_unavailable`, `processing_error`). */
  readonly retryable?: boolean;
  constructor(
    code: PayJsErrorCode,
    message: string,
    extra?: { fields?: PayJsErrorFields; invoice?: Invoice; declineCode?: DeclineCode; retryable?: boolean },
  );
}

/** One checkout: card frames (or none, for bank payments), events and pay(). Instances never share state. */
export declare class PayJs {
  /** Throws a TypeError on misuse (a token that is not a string, an unknown format, `number` without `cvv`, ...). */
  constructor(token: string, options?: PayJsOptions);
  /** Inserts the card number and CVV frames into their containers; rejects with a PayJsError. */
  showCardForm(): Promise<PayJsHandler>;
  /** The form became complete and valid. */
  on(event: "card_form_complete", callback: (message: CardFormMessage) => void): void;
  /** A change left the form not complete and valid. */
  on(event: "card_form_uncomplete", callback: (message: CardFormMessage) => void): void;
  /** The live library's name for card_form_uncomplete; fires with it. (An unknown name only warns in the console.) */
  on(event: "card_form_incomplete", callback: (message: CardFormMessage) => void): void;
  /**
   * Validates, tokenizes, creates the invoice and pays it; resolves with the PAID invoice. Rejects
   * with a PayJsError; a decline's carries the ATTEMPTED invoice as `error.invoice`.
   */
  pay(extraDetails: ExtraDetails): Promise<Invoice>;
  /** Validates and stores the card (or bank account) only: resolves with the payment method; no invoice, no transaction. */
  tokenize(extraDetails: TokenizeDetails): Promise<PaymentMethod>;
}

type PayJsConstructor = typeof PayJs;
type PayJsErrorConstructor = typeof PayJsError;

/** What `<script src=".../payjs.js">` defines: `PayJs` and `PayJsError` as globals. */
declare global {
  interface Window {
    PayJs: PayJsConstructor;
    PayJsError: PayJsErrorConstructor;
  }
  var PayJs: PayJsConstructor;
  var PayJsError: PayJsErrorConstructor;
}
