/**
 * A merchant's settings (docs/contract.md §6): read from its row, and a change checked and merged
 * over them. The custom fields and receipt options they hold have their rules in
 * ./merchant-options.ts.
 */
import type { MerchantRow } from "../storage/repositories/merchants";
import type { MerchantSettingsRecord } from "../domain/schemas/records";
import { ValidationFailed } from "../domain/errors";
import { parseSurchargeRate, rateNumber, SURCHARGE_MESSAGES, type SurchargePolicy } from "../domain/surcharge";
import type { FieldErrors } from "../../packages/rules/validation";
import {
  parseCustomFields,
  parseReceiptOptions,
  validateCustomFields,
  validateReceiptOptions,
  type ReceiptOptions,
} from "./merchant-options";

/** A merchant's settings (docs/contract.md §6): the type of their schema. */
export type MerchantSettings = typeof MerchantSettingsRecord.static;

/** What a settings change may hold: any subset, every value unchecked until updateSettings. */
export type SettingsInput = Partial<Record<keyof MerchantSettings, unknown>>;

export function settingsOf(row: MerchantRow): MerchantSettings {
  return {
    avs_zip: row.avs_zip === 1,
    avs_street: row.avs_street === 1,
    advanced_customization: row.advanced_customization === 1,
    ach_settlement_days: row.ach_settlement_days,
    custom_fields: parseCustomFields(row.custom_fields),
    ...parseReceiptOptions(row.receipt_options),
    is_surcharge_enabled: row.is_surcharge_enabled === 1,
    cnp_credit_surcharge_rate: row.surcharge_rate_bps > 0 ? rateNumber(row.surcharge_rate_bps) : null,
  };
}

/** What the merchant surcharges, from its row: read by every payment with the row it already has. */
export function surchargePolicyOf(
  row: Pick<MerchantRow, "is_surcharge_enabled" | "surcharge_rate_bps">,
): SurchargePolicy {
  return { enabled: row.is_surcharge_enabled === 1, rateBps: row.surcharge_rate_bps };
}

/** The rate of checked settings in basis points (0: none). */
export function rateBpsOf(s: Pick<MerchantSettings, "cnp_credit_surcharge_rate"> | null): number {
  return s?.cnp_credit_surcharge_rate ? Math.round(s.cnp_credit_surcharge_rate * 100) : 0;
}

const SETTINGS_KEYS = new Set<string>([
  "avs_zip",
  "avs_street",
  "advanced_customization",
  "ach_settlement_days",
  "custom_fields",
  "receipt_reply_to",
  "receipt_cc",
  "receipt_footer",
  "receipt_send_declined",
  "is_surcharge_enabled",
  "cnp_credit_surcharge_rate",
]);

export function receiptOptionsOf(s: MerchantSettings): ReceiptOptions {
  return {
    receipt_reply_to: s.receipt_reply_to,
    receipt_cc: s.receipt_cc,
    receipt_footer: s.receipt_footer,
    receipt_send_declined: s.receipt_send_declined,
  };
}

/** A settings change checked and merged over `current` (the defaults when null); 422 naming every bad field. */
export function checkSettings(input: SettingsInput, current: MerchantSettings | null): MerchantSettings {
  const base: MerchantSettings = current ?? {
    avs_zip: false,
    avs_street: false,
    advanced_customization: false,
    ach_settlement_days: 2,
    custom_fields: [],
    ...parseReceiptOptions("{}"),
    is_surcharge_enabled: false,
    cnp_credit_surcharge_rate: null,
  };
  const errors: FieldErrors = {};
  for (const key of Object.keys(input)) {
    if (!SETTINGS_KEYS.has(key)) errors[key] = [`The ${key} setting does not exist.`];
  }
  const next: MerchantSettings = { ...base, ...validateReceiptOptions(input, base, errors) };
  for (const flag of ["avs_zip", "avs_street", "advanced_customization"] as const) {
    const value = input[flag];
    if (value === undefined) continue;
    if (typeof value !== "boolean") errors[flag] = [`The ${flag} setting must be true or false.`];
    else next[flag] = value;
  }
  if (input.ach_settlement_days !== undefined) {
    const days = input.ach_settlement_days;
    if (typeof days !== "number" || !Number.isInteger(days) || days < 0 || days > 10) {
      errors.ach_settlement_days = ["ACH settlement days must be a whole number from 0 to 10."];
    } else next.ach_settlement_days = days;
  }
  if (input.custom_fields !== undefined) next.custom_fields = validateCustomFields(input.custom_fields, errors);
  checkSurcharge(input, next, errors);
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors);
  return next;
}

/**
 * The surcharge settings (docs/contract.md "Surcharging"): `is_surcharge_enabled` a boolean,
 * `cnp_credit_surcharge_rate` a percentage above 0 and at most the card brands' limit (3), or null
 * to clear it; surcharging on needs a rate. Writes into `next`, reports into `errors`.
 */
function checkSurcharge(input: SettingsInput, next: MerchantSettings, errors: FieldErrors): void {
  const enabled = input.is_surcharge_enabled;
  if (enabled !== undefined) {
    if (typeof enabled !== "boolean") errors.is_surcharge_enabled = [SURCHARGE_MESSAGES.enabledFlag];
    else next.is_surcharge_enabled = enabled;
  }
  const rate = input.cnp_credit_surcharge_rate;
  if (rate === null) next.cnp_credit_surcharge_rate = null;
  else if (rate !== undefined) {
    const parsed = parseSurchargeRate(rate);
    if ("error" in parsed) errors.cnp_credit_surcharge_rate = [parsed.error];
    else next.cnp_credit_surcharge_rate = rateNumber(parsed.bps);
  }
  if (next.is_surcharge_enabled && next.cnp_credit_surcharge_rate === null && !errors.cnp_credit_surcharge_rate) {
    errors.cnp_credit_surcharge_rate = [SURCHARGE_MESSAGES.rateRequired];
  }
}
