import { t } from "elysia";
import { MerchantRecord, MerchantSettingsRecord, Nullable, NullableTimestamp, Timestamp } from "./records";

/**
 * GET /self's `user`: who the API key acts as. The real service answers the key's own API user
 * (`is_api_key: true`); the sandbox has one per merchant, derived from it.
 */
export const SelfUser = t.Object(
  {
    id: t.String({ description: "Stable per merchant" }),
    name: t.String({ description: "The merchant's name + ' API key'" }),
    email: Nullable(t.String({ description: "The merchant's e-mail; null when it has none" })),
    merchant_id: t.String(),
    is_api_key: t.Boolean({ description: "Always true: the sandbox's users are its API keys" }),
    system_admin: t.Boolean(),
    team_role: t.String({ description: "admin" }),
    team_admin: t.Boolean(),
    team_enabled: t.Boolean(),
    is_default: t.Boolean(),
    gravatar: t.String(),
    brand: t.String(),
    email_verification_sent_at: NullableTimestamp,
    email_verified_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "SelfUser", description: "The API user of the key" },
);

/** GET /self's `merchant`, in the real service's field names. */
export const SelfMerchant = t.Object(
  {
    id: t.String(),
    mid: t.String({ description: "12 digits, stable per merchant (the processor's merchant id)" }),
    status: t.Literal("ACTIVE"),
    subdomain: t.String(),
    company_name: t.String(),
    display_name: t.String(),
    contact_name: t.String(),
    contact_email: t.String(),
    contact_phone: t.String({ description: "Empty: sandbox merchants have no phone" }),
    address_1: t.String({ description: "Empty: sandbox merchants have no address" }),
    address_2: t.String(),
    address_city: t.String(),
    address_state: t.String(),
    address_zip: t.String(),
    hosted_payments_token: t.String({ description: "The web payments token (public)" }),
    options: MerchantSettingsRecord,
    allow_ach: t.Boolean(),
    allow_credits: t.Boolean(),
    allow_terminal: t.Boolean(),
    is_enterprise: t.Boolean(),
    is_payfac: t.Boolean(),
    is_portal: t.Boolean(),
    is_surcharge_enabled: t.Boolean({ description: "Whether credit card payments are surcharged" }),
    cnp_credit_surcharge_rate: Nullable(t.Number({ description: "The surcharge in percent; null when none is set" })),
    processor: t.String(),
    currency: t.Array(t.String()),
    brand: t.String(),
    plan: t.Null(),
    branding: t.Null(),
    gateway_type: t.Null(),
    gateway_name: t.Null(),
    product_type: t.Null(),
    partner: t.String(),
    notes: t.String(),
    welcome_email_sent_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "SelfMerchant", description: "The merchant of the key, in the real service's field names" },
);

/**
 * GET /self: the sandbox's own merchant fields at the top level (as before), plus `user` and
 * `merchant` where clients of the real service read them.
 */
// t.Object, not t.Composite: Composite clones its members, and Elysia marks a schema it answers with
// (PUT /team/options answers SelfMerchant) as closed in place; a clone left unmarked beside it made
// two different "SelfMerchant" schemas, and /openapi/json a 500.
export const SelfRecord = t.Object(
  { ...MerchantRecord.properties, user: SelfUser, merchant: SelfMerchant },
  { title: "Self" },
);
export type SelfRecord = typeof SelfRecord.static;
