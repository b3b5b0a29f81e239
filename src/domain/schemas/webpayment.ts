import { t } from "elysia";

const Str = (description?: string) => t.Optional(t.String(description ? { description } : {}));

/** POST /webpayment/{token}/tokenize: the browser library's and the mobile SDK's wire (docs/mobile.md). */
export const TokenizeBody = t.Object(
  {
    method: t.String({ description: "card or bank" }),
    person_name: Str("Name on the card or account holder, ≤ 50 characters"),
    card_number: Str("Card: a test card number (digits; spaces and dashes allowed)"),
    card_cvv: Str("Card: 3 digits, 4 for Amex; optional"),
    card_exp: Str("Card: MMYY, not in the past"),
    bank_account: Str("Bank: account number, digits"),
    bank_routing: Str("Bank: 9-digit ABA routing number"),
    bank_type: Str("Bank: checking or savings"),
    bank_holder_type: Str("Bank: personal or business"),
    bank_name: Str("Bank: optional"),
    customer_id: Str("An existing customer of the merchant; customer fields are then ignored"),
    firstname: Str(),
    lastname: Str(),
    company: Str(),
    email: Str(),
    phone: Str(),
    address_1: Str(),
    address_2: Str(),
    address_city: Str(),
    address_state: Str(),
    address_zip: Str(),
    address_country: Str(),
  },
  { title: "TokenizeRequest" },
);
export type TokenizeBody = typeof TokenizeBody.static;

export const TokenParams = t.Object({ token: t.String({ description: "The merchant's web payments token" }) });
