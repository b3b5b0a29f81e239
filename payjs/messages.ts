/**
 * Every user-facing validation message, written once. The server, the browser library and
 * the mobile SDK all report these exact strings; tests compare against the constants.
 */
export const MESSAGES = {
  required: (field: string) => `The ${field} field is required.`,
  maxLength: (field: string, max: number) => `The ${field} may not be greater than ${max} characters.`,
  minLength: (field: string, min: number) => `The ${field} must be at least ${min} characters.`,
  exactLength: (field: string, len: number) => `The ${field} must be ${len} characters.`,
  mustBeString: (field: string) => `The ${field} must be a string.`,
  mustBeBoolean: (field: string) => `The ${field} field must be true or false.`,
  mustBeObject: (field: string) => `The ${field} must be an object.`,
  oneOf: (field: string, values: readonly string[]) =>
    `The selected ${field} is invalid; expected one of: ${values.join(", ")}.`,
  email: "The email must be a valid email address.",
  totalNumeric: "The total must be a number.",
  totalPositive: "The total must be greater than 0.",
  totalDecimals: "The total may have at most two decimal places.",
  totalTooLarge: "The total may not be greater than 99999999.99.",
  month: "The month must be two digits from 01 to 12.",
  year: "The year must be four digits.",
  cardExp: "The card_exp must be four digits: month (01-12) then two-digit year (MMYY).",
  cardExpired: "The card is expired.",
  cardNumberDigits: "The card number must contain only digits.",
  cardNumberInvalid: "The card number is invalid.",
  cardNumberNotTest: "Only test card numbers are accepted by the sandbox; see GET /_sandbox/test-cards.",
  cvvInvalid: (len: number) => `The CVV must be ${len} digits.`,
  routingDigits: "The bank_routing must be 9 digits.",
  routingChecksum: "The bank_routing is not a valid ABA routing number.",
  routingNotTest: "Only the sandbox test routing number 021000021 is accepted.",
  accountDigits: "The bank_account must contain only digits (4 to 17).",
  customFieldId: "Each custom field needs an id.",
  customFieldUnique: (id: string) => `The custom field id "${id}" is used more than once.`,
  customFieldType: "The custom field type must be text.",
  customFieldsArray: "The invoice_merchant_custom_fields must be an array of custom fields.",
  lineItemsArray: "The lineItems must be an array of line items.",
  customerNotFound: "The selected customer_id is invalid.",
  invoiceTotalMismatch: (balance: string) => `The total must equal the invoice's balance due (${balance}).`,
} as const;
