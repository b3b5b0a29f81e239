/**
 * What pay() and tokenize() send, taken from the integrator's extra details: the fields of each
 * request, and the validation errors that stop one before it is sent.
 */
import { cvvLength } from "../rules/card-rules";
import { MESSAGES } from "../rules/messages";
import { addError, CUSTOMER_FIELDS, type FieldErrors } from "../rules/validation";
import type { CardTokenizeDetails } from "./protocol";
import type { CardFormMessage } from "./types";

// invoice_id: the hosted payment page pays an existing open invoice (the route reuses it).
export const INVOICE_FIELDS = [
  "invoice_id",
  "customer_id",
  "total",
  "meta",
  "url",
  "send_receipt",
  "email",
  ...CUSTOMER_FIELDS,
] as const;
export const BANK_FIELDS = [
  "person_name",
  "bank_account",
  "bank_routing",
  "bank_type",
  "bank_holder_type",
  "bank_name",
] as const;

/** One of each message per field (a field can break the same rule twice: required, and required by AVS). */
export function unique(fields: FieldErrors): FieldErrors {
  for (const [field, messages] of Object.entries(fields)) fields[field] = [...new Set(messages)];
  return fields;
}

/** The first message, and how many more: what the API's 422 says too. */
export function summary(fields: FieldErrors): string {
  const all = Object.values(fields).flat();
  const more = all.length - 1;
  return more > 0 ? `${all[0]} (and ${more} more error${more > 1 ? "s" : ""})` : all[0]!;
}

export function pick(source: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) if (source[field] !== undefined) out[field] = source[field];
  return out;
}

/** The card form's own errors, from the state its frames last reported. */
export function validateCardForm(fields: FieldErrors, state: CardFormMessage): void {
  const { number, cvv, card_type } = state;
  if (number.empty) addError(fields, "card_number", MESSAGES.required("card_number"));
  else if (!number.valid) addError(fields, "card_number", MESSAGES.cardNumberInvalid);
  if (!cvv.valid) addError(fields, "card_cvv", MESSAGES.cvvInvalid(cvvLength(card_type)));
}

/** What the number frame sends with the card: the customer's fields, name and expiry. */
export function cardTokenizeDetails(details: Record<string, unknown>): CardTokenizeDetails {
  const year = typeof details.year === "string" ? details.year : String(details.year ?? "");
  const month = typeof details.month === "string" ? details.month : String(details.month ?? "");
  return {
    ...pick(details, ["customer_id", ...CUSTOMER_FIELDS]),
    person_name: `${details.firstname ?? ""} ${details.lastname ?? ""}`.trim(),
    card_exp: month + year.slice(2),
  } as CardTokenizeDetails;
}
