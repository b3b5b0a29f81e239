import { t } from "elysia";
import { LIMITS } from "../../../packages/rules/validation";
import { EMAIL_PATTERN, EmailString } from "./records";

/**
 * The shared rules' lengths and formats of the customer fields (validateCustomerFields), as the
 * document states them. Given to an object schema under allOf (or in an anyOf branch), where the
 * route's schema check and Elysia's normalizer leave them alone: the service checks them, every
 * broken field at once (a fresh object per use).
 */
export const customerFieldRules = () => ({
  firstname: { type: "string", maxLength: LIMITS.name },
  lastname: { type: "string", maxLength: LIMITS.name },
  phone: { type: "string", pattern: `^$|^[\\s\\S]{${LIMITS.phoneMin},}$`, description: "empty, or 10 or more" },
  address_1: { type: "string", maxLength: LIMITS.address },
  address_2: { type: "string", maxLength: LIMITS.address },
  address_city: { type: "string", maxLength: LIMITS.address },
  address_state: { type: "string", maxLength: LIMITS.state },
  address_country: { type: "string", pattern: `^$|^[\\s\\S]{${LIMITS.country}}$` },
  email: { type: "string", pattern: EMAIL_PATTERN, maxLength: 254 },
});

const Str = t.Optional(t.String());

/** Writable customer fields; lengths and formats are checked by the shared rules (packages/rules/validation.ts). */
export const CustomerBody = t.Object(
  {
    firstname: Str,
    lastname: Str,
    company: Str,
    email: t.Optional(EmailString()),
    phone: Str,
    address_1: Str,
    address_2: Str,
    address_city: Str,
    address_state: Str,
    address_zip: Str,
    address_country: Str,
    reference: Str,
    notes: t.Optional(t.Union([t.String(), t.Null()])),
    options: t.Optional(t.Union([t.Record(t.String(), t.Unknown()), t.Null()])),
    cc_emails: t.Optional(t.Union([t.Array(t.String()), t.Null()])),
    cc_sms: t.Optional(t.Union([t.Array(t.String()), t.Null()])),
    allow_invoice_credit_card_payments: t.Optional(t.Boolean()),
  },
  { title: "CustomerRequest", allOf: [{ properties: customerFieldRules() }] },
);
export type CustomerBody = typeof CustomerBody.static;
