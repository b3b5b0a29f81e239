import { sha256Hex } from "../lib/crypto";
import { merchantRecord, settingsOf, type MerchantRow } from "./merchants";
import type { SelfRecord } from "../domain/schemas/self";

/** A UUID-shaped id derived from a seed, so the same merchant always has the same user id. */
function derivedUuid(seed: string): string {
  const hex = sha256Hex(seed);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The id of the API user a merchant's key acts as (GET /self `user.id`; the `user_id` of its records). */
export function apiUserId(merchantId: string): string {
  return derivedUuid(`user:${merchantId}`);
}

/** 12 digits derived from the merchant id: the processor merchant id (`mid`). */
function merchantNumber(merchantId: string): string {
  const digits = BigInt(`0x${sha256Hex(`mid:${merchantId}`).slice(0, 15)}`)
    .toString()
    .padStart(10, "0");
  return `52${digits.slice(-10)}`;
}

/** The answer of GET /self for a merchant (its schema: src/domain/schemas/self.ts). */
export function selfRecord(row: MerchantRow): SelfRecord {
  const settings = settingsOf(row);
  return {
    ...merchantRecord(row),
    user: {
      id: apiUserId(row.id),
      name: `${row.name} API key`,
      email: row.email === "" ? null : row.email,
      merchant_id: row.id,
      is_api_key: true,
      system_admin: false,
      team_role: "admin",
      team_admin: true,
      team_enabled: true,
      is_default: row.is_default === 1,
      gravatar: `//www.gravatar.com/avatar/${sha256Hex(row.email.trim().toLowerCase())}`,
      brand: "paysandbox",
      email_verification_sent_at: null,
      email_verified_at: null,
      created_at: row.created_at,
      updated_at: row.updated_at,
      deleted_at: null,
    },
    merchant: {
      id: row.id,
      mid: merchantNumber(row.id),
      status: "ACTIVE",
      subdomain: "",
      company_name: row.name,
      display_name: row.name,
      contact_name: row.name,
      contact_email: row.email,
      contact_phone: "",
      address_1: "",
      address_2: "",
      address_city: "",
      address_state: "",
      address_zip: "",
      hosted_payments_token: row.web_payments_token,
      options: settings,
      allow_ach: true,
      allow_credits: true,
      allow_terminal: false,
      is_enterprise: false,
      is_payfac: false,
      is_portal: false,
      is_surcharge_enabled: settings.is_surcharge_enabled,
      cnp_credit_surcharge_rate: settings.cnp_credit_surcharge_rate,
      processor: "paysandbox",
      currency: ["USD"],
      brand: "paysandbox",
      plan: null,
      branding: null,
      gateway_type: null,
      gateway_name: null,
      product_type: null,
      partner: "",
      notes: "",
      welcome_email_sent_at: null,
      created_at: row.created_at,
      updated_at: row.updated_at,
      deleted_at: null,
    },
  };
}
