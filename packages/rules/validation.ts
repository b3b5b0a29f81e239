/**
 * The input rules of the service (docs/contract.md §7), written once. The browser library runs them
 * before pay() sends anything, the mobile SDK before tokenize, and the server on every request,
 * so all three report the same field names and the same messages.
 */
import { MESSAGES } from "./messages";
import { cvvLength, detectBrand, digitsOnly, isCardNumberValid, isValidAbaRouting } from "./card-rules";

/** Field name → messages, the `errors` member of a 422. */
export type FieldErrors = Record<string, string[]>;

/** The merchant settings that change which fields are required. */
export interface AvsSettings {
  avs_zip: boolean;
  avs_street: boolean;
}

export const LIMITS = {
  name: 50,
  address: 255,
  state: 2,
  country: 3,
  phoneMin: 10,
  maxTotalCents: 9_999_999_999,
} as const;

export const BANK_TYPES = ["checking", "savings"] as const;
export const BANK_HOLDER_TYPES = ["personal", "business"] as const;
export const METHODS = ["card", "bank"] as const;

/** The customer fields of a payment: what pay() forwards and tokenize stores on a new customer. */
export const CUSTOMER_FIELDS = [
  "firstname",
  "lastname",
  "company",
  "email",
  "phone",
  "address_1",
  "address_2",
  "address_city",
  "address_state",
  "address_zip",
  "address_country",
] as const;

type Input = Record<string, unknown>;

/** Adds a message to a field once (two rules may require the same field). */
export function addError(errors: FieldErrors, field: string, message: string): void {
  const messages = (errors[field] ??= []);
  if (!messages.includes(message)) messages.push(message);
}

export function hasErrors(errors: FieldErrors): boolean {
  return Object.keys(errors).length > 0;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/** Checks that a present value is a string and returns it (undefined when absent or wrong). */
function str(errors: FieldErrors, input: Input, field: string): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    addError(errors, field, MESSAGES.mustBeString(field));
    return undefined;
  }
  return value;
}

function required(errors: FieldErrors, input: Input, field: string): void {
  if (isBlank(input[field])) addError(errors, field, MESSAGES.required(field));
}

function maxLen(errors: FieldErrors, input: Input, field: string, max: number): void {
  const value = str(errors, input, field);
  if (value !== undefined && value.length > max) addError(errors, field, MESSAGES.maxLength(field, max));
}

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** True for a plausible e-mail address (what a receipt can be sent to). */
export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

export interface CustomerRuleOptions {
  /** firstname and lastname must be given (pay(), POST /customer). */
  requireNames: boolean;
  /** phone, address_1, address_city and address_state must be given (pay() without customer_id). */
  requireContact: boolean;
}

/** Lengths, formats and requiredness of the customer fields. */
export function validateCustomerFields(
  input: Input,
  options: CustomerRuleOptions,
  errors: FieldErrors = {},
): FieldErrors {
  if (options.requireNames) {
    required(errors, input, "firstname");
    required(errors, input, "lastname");
  }
  if (options.requireContact) {
    for (const field of ["phone", "address_1", "address_city", "address_state"]) required(errors, input, field);
  }
  maxLen(errors, input, "firstname", LIMITS.name);
  maxLen(errors, input, "lastname", LIMITS.name);
  for (const field of ["address_1", "address_2", "address_city"]) maxLen(errors, input, field, LIMITS.address);
  maxLen(errors, input, "address_state", LIMITS.state);
  for (const field of ["company", "address_zip", "reference", "notes"]) str(errors, input, field);
  const phone = str(errors, input, "phone");
  if (phone !== undefined && phone !== "" && phone.length < LIMITS.phoneMin) {
    addError(errors, "phone", MESSAGES.minLength("phone", LIMITS.phoneMin));
  }
  const email = str(errors, input, "email");
  if (email !== undefined && email !== "" && !isValidEmail(email)) addError(errors, "email", MESSAGES.email);
  const country = str(errors, input, "address_country");
  if (country !== undefined && country !== "" && country.length !== LIMITS.country) {
    addError(errors, "address_country", MESSAGES.exactLength("address_country", LIMITS.country));
  }
  return errors;
}

/** Address verification: zip required with avs_zip, street (address_1) with avs_street. */
export function validateAvs(input: Input, settings: AvsSettings, errors: FieldErrors = {}): FieldErrors {
  if (settings.avs_zip) required(errors, input, "address_zip");
  if (settings.avs_street) required(errors, input, "address_1");
  return errors;
}

export function validatePersonName(input: Input, errors: FieldErrors = {}): FieldErrors {
  required(errors, input, "person_name");
  maxLen(errors, input, "person_name", LIMITS.name);
  return errors;
}

export function validateMethod(input: Input, errors: FieldErrors = {}): FieldErrors {
  if (isBlank(input.method)) addError(errors, "method", MESSAGES.required("method"));
  else if (!(METHODS as readonly unknown[]).includes(input.method))
    addError(errors, "method", MESSAGES.oneOf("method", METHODS));
  return errors;
}

/**
 * Parses a total given as a number or a numeric string into integer cents.
 * Returns the error message instead when it is not > 0 with at most two decimals.
 */
export function parseTotalCents(value: unknown): { cents: number } | { error: string } {
  let text: string;
  if (typeof value === "number" && value > 0 && value < 1e8) {
    // The usual case (a JSON number with at most two decimals), without text: `value` has at most
    // two decimals exactly when it is the double nearest to its cents / 100.
    const cents = Math.round(value * 100);
    if (cents / 100 === value && cents <= LIMITS.maxTotalCents) return { cents };
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return { error: MESSAGES.totalNumeric };
    text = String(value);
    if (/e/i.test(text)) text = value.toFixed(10).replace(/0+$/, "").replace(/\.$/, "");
  } else if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) {
    text = value.trim();
  } else {
    return { error: MESSAGES.totalNumeric };
  }
  const [whole, fraction = ""] = text.replace(/^-/, "").split(".");
  if (text.startsWith("-")) return { error: MESSAGES.totalPositive };
  if (fraction.replace(/0+$/, "").length > 2) return { error: MESSAGES.totalDecimals };
  if (whole!.replace(/^0+/, "").length > 8) return { error: MESSAGES.totalTooLarge };
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2));
  if (cents <= 0) return { error: MESSAGES.totalPositive };
  if (cents > LIMITS.maxTotalCents) return { error: MESSAGES.totalTooLarge };
  return { cents };
}

export function validateTotal(input: Input, errors: FieldErrors = {}): FieldErrors {
  if (isBlank(input.total)) {
    addError(errors, "total", MESSAGES.required("total"));
    return errors;
  }
  const parsed = parseTotalCents(input.total);
  if ("error" in parsed) addError(errors, "total", parsed.error);
  return errors;
}

function isExpired(month: number, year: number, now: Date): boolean {
  const nowYear = now.getUTCFullYear();
  const nowMonth = now.getUTCMonth() + 1;
  return year < nowYear || (year === nowYear && month < nowMonth);
}

/** pay()'s card expiry: month "01"–"12", year four digits, not in the past. */
export function validateMonthYear(input: Input, now: Date, errors: FieldErrors = {}): FieldErrors {
  const month = input.month;
  const year = input.year;
  let ok = true;
  if (isBlank(month)) (addError(errors, "month", MESSAGES.required("month")), (ok = false));
  else if (typeof month !== "string" || !/^(0[1-9]|1[0-2])$/.test(month))
    (addError(errors, "month", MESSAGES.month), (ok = false));
  if (isBlank(year)) (addError(errors, "year", MESSAGES.required("year")), (ok = false));
  else if (typeof year !== "string" || !/^\d{4}$/.test(year)) (addError(errors, "year", MESSAGES.year), (ok = false));
  if (ok && isExpired(Number(month), Number(year), now)) addError(errors, "year", MESSAGES.cardExpired);
  return errors;
}

/** The tokenize wire's expiry: "MMYY", not in the past. */
export function validateCardExp(input: Input, now: Date, errors: FieldErrors = {}): FieldErrors {
  const exp = input.card_exp;
  if (isBlank(exp)) addError(errors, "card_exp", MESSAGES.required("card_exp"));
  else if (typeof exp !== "string" || !/^(0[1-9]|1[0-2])\d{2}$/.test(exp))
    addError(errors, "card_exp", MESSAGES.cardExp);
  else if (isExpired(Number(exp.slice(0, 2)), 2000 + Number(exp.slice(2)), now))
    addError(errors, "card_exp", MESSAGES.cardExpired);
  return errors;
}

/** bank_type, bank_holder_type, bank_routing (9 digits, ABA checksum) and bank_account (digits). */
export function validateBankFields(input: Input, errors: FieldErrors = {}): FieldErrors {
  for (const [field, values] of [
    ["bank_type", BANK_TYPES],
    ["bank_holder_type", BANK_HOLDER_TYPES],
  ] as const) {
    if (isBlank(input[field])) addError(errors, field, MESSAGES.required(field));
    else if (!(values as readonly unknown[]).includes(input[field]))
      addError(errors, field, MESSAGES.oneOf(field, values));
  }
  const routing = input.bank_routing;
  if (isBlank(routing)) addError(errors, "bank_routing", MESSAGES.required("bank_routing"));
  else if (typeof routing !== "string" || !/^\d{9}$/.test(routing))
    addError(errors, "bank_routing", MESSAGES.routingDigits);
  else if (!isValidAbaRouting(routing)) addError(errors, "bank_routing", MESSAGES.routingChecksum);
  const account = input.bank_account;
  if (isBlank(account)) addError(errors, "bank_account", MESSAGES.required("bank_account"));
  else if (typeof account !== "string" || !/^\d{4,17}$/.test(account))
    addError(errors, "bank_account", MESSAGES.accountDigits);
  str(errors, input, "bank_name");
  return errors;
}

/** meta.invoice_merchant_custom_fields: ids required and unique, type text; meta.lineItems an array. */
export function validateMeta(meta: unknown, errors: FieldErrors = {}): FieldErrors {
  if (meta === undefined || meta === null) return errors;
  if (typeof meta !== "object" || Array.isArray(meta)) {
    addError(errors, "meta", MESSAGES.mustBeObject("meta"));
    return errors;
  }
  const { lineItems, invoice_merchant_custom_fields: fields } = meta as Input;
  if (lineItems !== undefined && !Array.isArray(lineItems)) addError(errors, "meta.lineItems", MESSAGES.lineItemsArray);
  if (fields === undefined) return errors;
  const key = "meta.invoice_merchant_custom_fields";
  if (!Array.isArray(fields)) {
    addError(errors, key, MESSAGES.customFieldsArray);
    return errors;
  }
  const seen = new Set<string>();
  fields.forEach((field: unknown, index) => {
    const at = `${key}.${index}`;
    if (typeof field !== "object" || field === null || Array.isArray(field)) {
      addError(errors, at, MESSAGES.customFieldsArray);
      return;
    }
    const { id, type } = field as Input;
    if (typeof id !== "string" || id.trim() === "") addError(errors, `${at}.id`, MESSAGES.customFieldId);
    else if (seen.has(id)) addError(errors, `${at}.id`, MESSAGES.customFieldUnique(id));
    else seen.add(id);
    if (type !== undefined && type !== "text") addError(errors, `${at}.type`, MESSAGES.customFieldType);
  });
  return errors;
}

/**
 * Every rule pay(extraDetails) must pass before anything is sent: the browser library runs
 * this, and the server runs the same checks across its tokenize and invoice steps.
 */
export function validateExtraDetails(details: Input, settings: AvsSettings, now: Date = new Date()): FieldErrors {
  const errors: FieldErrors = {};
  validateMethod(details, errors);
  const hasCustomer = !isBlank(details.customer_id);
  if (hasCustomer) {
    // Customer fields are ignored when a customer is given; only the names stay required.
    validateCustomerFields(
      { firstname: details.firstname, lastname: details.lastname },
      { requireNames: true, requireContact: false },
      errors,
    );
  } else {
    validateCustomerFields(details, { requireNames: true, requireContact: true }, errors);
  }
  validateAvs(details, settings, errors);
  validateTotal(details, errors);
  if (details.send_receipt !== undefined && typeof details.send_receipt !== "boolean") {
    addError(errors, "send_receipt", MESSAGES.mustBeBoolean("send_receipt"));
  }
  if (details.url !== undefined) str(errors, details, "url");
  validateMeta(details.meta, errors);
  if (details.method === "card") validateMonthYear(details, now, errors);
  if (details.method === "bank") {
    validatePersonName(details, errors);
    validateBankFields(details, errors);
  }
  return errors;
}

/**
 * The tokenize wire's card number: digits (spaces and dashes allowed), one of its brand's
 * lengths, passing Luhn. Whether it is a sandbox test card is the server's check alone.
 */
export function validateCardNumber(input: Input, errors: FieldErrors = {}): FieldErrors {
  const number = input.card_number;
  if (number === undefined || number === null || number === "") {
    addError(errors, "card_number", MESSAGES.required("card_number"));
  } else if (typeof number !== "string" || !/^[\d\s-]+$/.test(number)) {
    addError(errors, "card_number", MESSAGES.cardNumberDigits);
  } else if (!isCardNumberValid(number)) {
    addError(errors, "card_number", MESSAGES.cardNumberInvalid);
  }
  return errors;
}

/** The tokenize wire's optional CVV: when given, the digits of its brand's length (4 for Amex, else 3). */
export function validateCardCvv(input: Input, errors: FieldErrors = {}): FieldErrors {
  const cvv = input.card_cvv;
  if (cvv === undefined || cvv === null || cvv === "") return errors;
  const brand = typeof input.card_number === "string" ? detectBrand(input.card_number) : null;
  const length = cvvLength(brand);
  if (typeof cvv !== "string" || !new RegExp(`^\\d{${length}}$`).test(cvv)) {
    addError(errors, "card_cvv", MESSAGES.cvvInvalid(length));
  }
  return errors;
}

/**
 * Every rule of POST /webpayment/{token}/tokenize that a client can check on its own: all but
 * the ones that need the merchant (customer_id exists, AVS settings) or the sandbox's test data
 * (test card and test routing lists). The mobile SDK runs it before it sends anything.
 */
export function validateTokenizeInput(input: Input, now: Date = new Date(), errors: FieldErrors = {}): FieldErrors {
  validateMethod(input, errors);
  // Like the server: a given customer_id makes the customer fields irrelevant (its existence is the server's check).
  if (input.customer_id === undefined || input.customer_id === "") {
    validateCustomerFields(input, { requireNames: false, requireContact: false }, errors);
  }
  validatePersonName(input, errors);
  if (input.method === "card") {
    validateCardExp(input, now, errors);
    validateCardNumber(input, errors);
    validateCardCvv(input, errors);
  } else if (input.method === "bank") {
    validateBankFields(input, errors);
  }
  return errors;
}

export { digitsOnly };
