import { t } from "elysia";
import { EmailString } from "./records";

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
  { title: "CustomerRequest" },
);
export type CustomerBody = typeof CustomerBody.static;
