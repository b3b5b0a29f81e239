/**
 * Surcharging (docs/contract.md "Surcharging"): a merchant may add a percentage to what a credit
 * card pays, within the card brands' limit; debit and prepaid cards and bank payments are never
 * surcharged. All arithmetic is in integer cents and basis points (1% = 100 bps), so nothing
 * depends on how a float rounds.
 */
import type { CardFunding } from "../../packages/rules/test-data";

/**
 * The highest rate a merchant may set, in basis points: 3%, Visa's cap (Mastercard allows 4%,
 * but a merchant taking Visa cards is held to 3%, and every sandbox merchant takes them).
 */
export const SURCHARGE_RATE_LIMIT_BPS = 300;

/** A card's funding as the real records spell it (`bin_type`). */
export type BinType = "CREDIT" | "DEBIT" | "PREPAID";

/** A bank payment's `bin_type` in GET /surcharge/review (the real description names only card types). */
export const BANK_BIN_TYPE = "BANK";

export function binTypeOf(funding: CardFunding): BinType {
  return funding === "debit" ? "DEBIT" : funding === "prepaid" ? "PREPAID" : "CREDIT";
}

/** Why no surcharge applies, as the review answers it. */
export type NoSurchargeReason = "surcharging_off" | "debit_card" | "prepaid_card" | "bank_payment";

export const SURCHARGE_MESSAGES = {
  applies: (rate: string) => `A ${rate}% surcharge applies: the payment method is a credit card.`,
  surcharging_off: "No surcharge: this merchant does not surcharge (turn it on in the merchant's settings).",
  debit_card: "No surcharge: debit cards may not be surcharged.",
  prepaid_card: "No surcharge: prepaid cards may not be surcharged.",
  bank_payment: "No surcharge: only credit cards are surcharged, and this is a bank payment.",
  rateRange: (limit: string) =>
    `The surcharge rate must be a percentage above 0 and at most ${limit} (the card brands' limit), with at most two decimals.`,
  rateRequired: "Surcharging needs a rate: give cnp_credit_surcharge_rate (a percentage, e.g. 3).",
  enabledFlag: "The is_surcharge_enabled setting must be true or false.",
} as const;

/** What a merchant surcharges: on or off, and the rate in basis points (0 when none is set). */
export interface SurchargePolicy {
  enabled: boolean;
  rateBps: number;
}

/** The part of a payment method the decision reads. */
export interface SurchargedMethod {
  method: "card" | "bank";
  bin_type: BinType | null;
}

/** What a payment of `saleCents` with this method pays on top: the rate, the amount, or why none. */
export interface SurchargeDecision {
  binType: string;
  rateBps: number;
  cents: number;
  reason: NoSurchargeReason | null;
}

/**
 * The surcharge of a sale: rate × sale, rounded half up to the cent (1.5% of 12.30 is 18.45 cents:
 * 18; of 12.34, 18.51: 19). BigInt, so no product is too large to be exact.
 */
export function surchargeCents(saleCents: number, rateBps: number): number {
  if (saleCents <= 0 || rateBps <= 0) return 0;
  return Number((BigInt(saleCents) * BigInt(rateBps) + 5000n) / 10000n);
}

/** Whether and how much a payment of `saleCents` with `pm` is surcharged under `policy`. */
export function decideSurcharge(policy: SurchargePolicy, pm: SurchargedMethod, saleCents: number): SurchargeDecision {
  const binType = pm.method === "bank" ? BANK_BIN_TYPE : (pm.bin_type ?? "CREDIT");
  const none = (reason: NoSurchargeReason): SurchargeDecision => ({ binType, rateBps: 0, cents: 0, reason });
  if (pm.method === "bank") return none("bank_payment");
  if (binType === "DEBIT") return none("debit_card");
  if (binType === "PREPAID") return none("prepaid_card");
  if (!policy.enabled || policy.rateBps <= 0) return none("surcharging_off");
  return { binType, rateBps: policy.rateBps, cents: surchargeCents(saleCents, policy.rateBps), reason: null };
}

/**
 * The share of `surcharge` that goes with `part` of `whole` (the cents a refund has returned so
 * far, of all that can be refunded): floor(surcharge × part / whole). Refunds take the difference
 * between the share after them and the share before, so the shares of any sequence of partial
 * refunds add up to the whole surcharge once everything is refunded: no cent lost or invented,
 * never more surcharge than the refund itself (surcharge ≤ whole).
 */
export function surchargeShare(surcharge: number, whole: number, part: number): number {
  if (surcharge <= 0 || whole <= 0 || part <= 0) return 0;
  if (part >= whole) return surcharge;
  return Number((BigInt(surcharge) * BigInt(part)) / BigInt(whole));
}

/** A rate in basis points as the real records show it: a percentage number (150 → 1.5). */
export function rateNumber(rateBps: number): number {
  return rateBps / 100;
}

/** "1.50": a rate for messages and pages. */
export function rateText(rateBps: number): string {
  return (rateBps / 100).toFixed(2);
}

/**
 * A rate as given (a percentage number or numeric text), in basis points; an error for anything
 * not above 0, over the limit, or with more than two decimals.
 */
export function parseSurchargeRate(value: unknown): { bps: number } | { error: string } {
  const error = { error: SURCHARGE_MESSAGES.rateRange(rateText(SURCHARGE_RATE_LIMIT_BPS)) };
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^\d+(\.\d+)?$/.test(text)) return error;
  const [whole, fraction = ""] = text.split(".");
  if (fraction.replace(/0+$/, "").length > 2 || whole!.length > 4) return error;
  const bps = Number(whole) * 100 + Number(fraction.padEnd(2, "0").slice(0, 2));
  if (bps <= 0 || bps > SURCHARGE_RATE_LIMIT_BPS) return error;
  return { bps };
}
