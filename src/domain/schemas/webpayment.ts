import { t } from "elysia";
import { BANK_HOLDER_TYPES, BANK_TYPES, METHODS } from "../../../packages/rules/validation";
import { OneOfString, RuleString } from "./records";
import { customerFieldRules } from "./customers";

/**
 * Tokenize's customer fields are checked (lengths, formats) only without a customer_id; with one,
 * they are ignored (validateTokenizeInput). As object options: an anyOf the route's schema check
 * leaves alone.
 */
export const CUSTOMER_FIELDS_UNLESS_CUSTOMER = () => ({
  anyOf: [
    { required: ["customer_id"], properties: { customer_id: { type: "string", minLength: 1 } } },
    { properties: customerFieldRules() },
  ],
});

const Str = (description?: string) => t.Optional(t.String(description ? { description } : {}));

/** POST /webpayment/{token}/tokenize: the browser library's and the mobile SDK's wire (docs/mobile.md). */
export const TokenizeBody = t.Object(
  {
    method: OneOfString(METHODS, "card or bank"),
    person_name: Str("Name on the card or account holder, ≤ 50 characters"),
    card_number: Str("Card: a test card number (digits; spaces and dashes allowed)"),
    card_cvv: Str("Card: 3 digits, 4 for Amex; optional"),
    card_exp: t.Optional(
      RuleString({ pattern: "^(0[1-9]|1[0-2])[0-9]{2}$", description: "Card: MMYY, not in the past" }),
    ),
    bank_account: Str("Bank: account number, digits"),
    bank_routing: Str("Bank: 9-digit ABA routing number"),
    bank_type: t.Optional(OneOfString(BANK_TYPES, "Bank: checking or savings")),
    bank_holder_type: t.Optional(OneOfString(BANK_HOLDER_TYPES, "Bank: personal or business")),
    bank_name: Str("Bank: optional"),
    customer_id: Str("An existing customer of the merchant; customer fields are then ignored"),
    firstname: Str(),
    lastname: Str(),
    company: Str(),
    email: t.Optional(RuleString({ description: "An e-mail address, or empty" })),
    phone: Str(),
    address_1: Str(),
    address_2: Str(),
    address_city: Str(),
    address_state: Str(),
    address_zip: Str(),
    address_country: Str(),
  },
  { title: "TokenizeRequest", ...CUSTOMER_FIELDS_UNLESS_CUSTOMER() },
);
export type TokenizeBody = typeof TokenizeBody.static;

export const TokenParams = t.Object({ token: t.String({ description: "The merchant's web payments token" }) });
