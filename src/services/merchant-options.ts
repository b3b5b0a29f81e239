/**
 * The merchant options behind the dashboard's Settings page that are more than a switch: the
 * Advanced Customization custom fields and the receipt options. One validator serves
 * PUT /_sandbox/merchants/{id}/settings and the dashboard, so both give the same messages.
 *
 * Custom fields follow the real service's shape (docs/spec.md "Custom field"): the merchant
 * defines `{id, name, placeholder, required, type, visible}` once; an invoice carries
 * `meta.invoice_merchant_custom_fields` entries that name a field by `id` and give its `value`
 * (live checkout pages send just `{id, value}`), and the merchant's definition supplies the
 * label and visibility.
 */
import { parseJson } from "../lib/json";
import { addError, type FieldErrors } from "../../packages/rules/validation";
import { isValidEmail } from "../../packages/rules/validation";

export interface MerchantCustomField {
  id: string;
  name: string;
  placeholder: string;
  required: boolean;
  type: "text";
  visible: boolean;
}

export interface ReceiptOptions {
  /** Reply-To of every receipt e-mail; "" for none (replies go nowhere). */
  receipt_reply_to: string;
  /** Addresses copied (Cc) on every receipt e-mail. */
  receipt_cc: string[];
  /** A closing message at the end of every receipt e-mail, e.g. a returns policy; "" for none. */
  receipt_footer: string;
  /** Whether a declined pay() still e-mails the customer (the real service's default: yes). */
  receipt_send_declined: boolean;
}

export const DEFAULT_RECEIPT_OPTIONS: ReceiptOptions = {
  receipt_reply_to: "",
  receipt_cc: [],
  receipt_footer: "",
  receipt_send_declined: true,
};

export const LIMITS = {
  customFields: 20,
  idLength: 64,
  nameLength: 100,
  placeholderLength: 100,
  cc: 5,
  footerLength: 500,
} as const;

/** The stored custom fields (a JSON column), tolerant of an empty or damaged value. */
export function parseCustomFields(json: string | null | undefined): MerchantCustomField[] {
  const list = parseJson<unknown>(json ?? "[]", []);
  return Array.isArray(list) ? (list as MerchantCustomField[]) : [];
}

export function parseReceiptOptions(json: string | null | undefined): ReceiptOptions {
  const stored = parseJson<Partial<ReceiptOptions>>(json ?? "{}", {});
  return { ...DEFAULT_RECEIPT_OPTIONS, ...(stored && typeof stored === "object" ? stored : {}) };
}

/** A custom field as given (the API's body or a dashboard form): every member may be missing or wrong. */
export interface CustomFieldInput {
  id?: unknown;
  name?: unknown;
  placeholder?: unknown;
  required?: unknown;
  type?: unknown;
  visible?: unknown;
}

const str = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/**
 * Checks one field definition, reporting under `${prefix}id`, `${prefix}name`, ... Returns the
 * normalised field (trimmed; required false and visible true by default; type text).
 */
export function validateCustomField(input: CustomFieldInput, prefix: string, errors: FieldErrors): MerchantCustomField {
  const id = str(input.id);
  const name = str(input.name);
  const placeholder = str(input.placeholder);
  if (id === "") addError(errors, `${prefix}id`, "The custom field's id is required.");
  else if (id.length > LIMITS.idLength)
    addError(errors, `${prefix}id`, `The custom field's id may not be longer than ${LIMITS.idLength} characters.`);
  else if (!/^[\w.:-]+$/.test(id))
    addError(errors, `${prefix}id`, "The custom field's id may only contain letters, digits, _ - . and :.");
  if (name === "") addError(errors, `${prefix}name`, "The custom field's name (its label) is required.");
  else if (name.length > LIMITS.nameLength)
    addError(
      errors,
      `${prefix}name`,
      `The custom field's name may not be longer than ${LIMITS.nameLength} characters.`,
    );
  if (input.placeholder !== undefined && typeof input.placeholder !== "string")
    addError(errors, `${prefix}placeholder`, "The custom field's placeholder must be text.");
  else if (placeholder.length > LIMITS.placeholderLength)
    addError(
      errors,
      `${prefix}placeholder`,
      `The custom field's placeholder may not be longer than ${LIMITS.placeholderLength} characters.`,
    );
  if (input.type !== undefined && input.type !== "text")
    addError(errors, `${prefix}type`, "The custom field's type must be text (the only type supported).");
  for (const flag of ["required", "visible"] as const) {
    if (input[flag] !== undefined && typeof input[flag] !== "boolean")
      addError(errors, `${prefix}${flag}`, `The custom field's ${flag} must be true or false.`);
  }
  return {
    id,
    name,
    placeholder,
    required: input.required === true,
    type: "text",
    visible: input.visible !== false,
  };
}

/** A whole list of definitions: each field valid, ids unique, at most LIMITS.customFields. */
export function validateCustomFields(list: unknown, errors: FieldErrors, key = "custom_fields"): MerchantCustomField[] {
  if (!Array.isArray(list)) {
    addError(errors, key, "The custom_fields must be a list of fields.");
    return [];
  }
  if (list.length > LIMITS.customFields) {
    addError(errors, key, `A merchant may define at most ${LIMITS.customFields} custom fields.`);
  }
  const seen = new Set<string>();
  return list.map((item, index) => {
    const at = `${key}.${index}.`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      addError(errors, `${key}.${index}`, "Each custom field must be an object.");
      return validateCustomField({}, at, {});
    }
    const field = validateCustomField(item as CustomFieldInput, at, errors);
    if (field.id !== "" && seen.has(field.id)) {
      addError(errors, `${at}id`, `The custom field id ${field.id} is used twice; ids must be unique.`);
    }
    seen.add(field.id);
    return field;
  });
}

/** Receipt options given (any subset), checked and merged over the current ones. */
export function validateReceiptOptions(
  input: Partial<Record<keyof ReceiptOptions, unknown>>,
  current: ReceiptOptions,
  errors: FieldErrors,
): ReceiptOptions {
  const next = { ...current };
  if (input.receipt_reply_to !== undefined) {
    const value = str(input.receipt_reply_to);
    if (typeof input.receipt_reply_to !== "string" || (value !== "" && !isValidEmail(value)))
      addError(errors, "receipt_reply_to", "The receipt reply-to must be a valid email address (or empty for none).");
    next.receipt_reply_to = value;
  }
  if (input.receipt_cc !== undefined) {
    const raw = input.receipt_cc;
    // A list, or one string of addresses separated by commas (what a form field holds).
    const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : null;
    if (!list) addError(errors, "receipt_cc", "The receipt_cc must be a list of email addresses.");
    else {
      const addresses = list.map((a) => (typeof a === "string" ? a.trim() : "")).filter((a) => a !== "");
      const bad = list.filter((a) => typeof a !== "string" || (a.trim() !== "" && !isValidEmail(a.trim())));
      if (bad.length > 0)
        addError(
          errors,
          "receipt_cc",
          `Each receipt copy address must be a valid email address: ${bad.map((b) => JSON.stringify(typeof b === "string" ? b.trim() : b)).join(", ")} ${bad.length > 1 ? "are" : "is"} not.`,
        );
      if (addresses.length > LIMITS.cc)
        addError(errors, "receipt_cc", `At most ${LIMITS.cc} addresses can be copied on receipts.`);
      if (new Set(addresses.map((a) => a.toLowerCase())).size !== addresses.length)
        addError(errors, "receipt_cc", "An address is listed twice in the receipt copies.");
      next.receipt_cc = addresses;
    }
  }
  if (input.receipt_footer !== undefined) {
    const value = str(input.receipt_footer);
    if (typeof input.receipt_footer !== "string")
      addError(errors, "receipt_footer", "The receipt footer must be text.");
    else if (value.length > LIMITS.footerLength)
      addError(
        errors,
        "receipt_footer",
        `The receipt footer may not be longer than ${LIMITS.footerLength} characters.`,
      );
    next.receipt_footer = value;
  }
  if (input.receipt_send_declined !== undefined) {
    if (typeof input.receipt_send_declined !== "boolean")
      addError(errors, "receipt_send_declined", "The receipt_send_declined must be true or false.");
    else next.receipt_send_declined = input.receipt_send_declined;
  }
  return next;
}

/** The entry of meta.invoice_merchant_custom_fields naming `id`, if any. */
function entryOf(meta: unknown, id: string): Record<string, unknown> | undefined {
  const list = (meta as { invoice_merchant_custom_fields?: unknown } | null | undefined)
    ?.invoice_merchant_custom_fields;
  if (!Array.isArray(list)) return undefined;
  return list.find(
    (e): e is Record<string, unknown> => typeof e === "object" && e !== null && (e as { id?: unknown }).id === id,
  );
}

const valueText = (value: unknown) =>
  typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "";

/**
 * POST /invoice with the merchant's Advanced Customization on: every `required` field needs a
 * non-empty value in meta.invoice_merchant_custom_fields (reported under
 * `meta.invoice_merchant_custom_fields.<field id>`).
 */
export function checkRequiredCustomFields(
  meta: unknown,
  definitions: readonly MerchantCustomField[],
  errors: FieldErrors,
): void {
  for (const field of definitions) {
    if (!field.required) continue;
    if (valueText(entryOf(meta, field.id)?.value) === "") {
      addError(
        errors,
        `meta.invoice_merchant_custom_fields.${field.id}`,
        `The custom field "${field.name}" (id ${field.id}) is required: give it a value in meta.invoice_merchant_custom_fields.`,
      );
    }
  }
}

/** A custom field as a page or receipt shows it. */
export interface ShownCustomField {
  id: string;
  name: string;
  value: string;
  visible: boolean;
}

/**
 * The custom fields of an invoice's meta merged with the merchant's definitions: each defined
 * field (in the merchant's order, with its label and visibility) that the invoice gives a value,
 * then the invoice's own fields the merchant does not define (as given, `visible` not false
 * meaning visible). Nothing without Advanced Customization.
 */
export function invoiceCustomFields(
  meta: Record<string, unknown>,
  advancedCustomization: boolean,
  definitions: readonly MerchantCustomField[],
): ShownCustomField[] {
  if (!advancedCustomization) return [];
  const defined = new Set(definitions.map((d) => d.id));
  const shown: ShownCustomField[] = [];
  for (const d of definitions) {
    const value = valueText(entryOf(meta, d.id)?.value);
    if (value !== "") shown.push({ id: d.id, name: d.name, value, visible: d.visible });
  }
  const own = Array.isArray(meta.invoice_merchant_custom_fields) ? meta.invoice_merchant_custom_fields : [];
  for (const f of own) {
    if (typeof f !== "object" || f === null) continue;
    const e = f as Record<string, unknown>;
    const id = valueText(e.id);
    if (defined.has(id)) continue;
    shown.push({ id, name: valueText(e.name) || id, value: valueText(e.value), visible: e.visible !== false });
  }
  return shown;
}
