/**
 * What a payment link costs and whether it can be paid now (docs/contract.md §5, "Payment links").
 * The amount comes from its line items when they name catalog items (priced as an invoice's,
 * ./line-items.ts), else from the real inline product (`price` × `quantity` + `tax`), else from
 * `amount` (or `link_meta.total`); a link whose total the customer enters may have none.
 */
import type { Executor } from "../../storage/database";
import type { PaymentLinkRow } from "../../storage/repositories/payment-links";
import { centsToNumber } from "../../domain/money";
import { addError, parseTotalCents, type FieldErrors } from "../../../packages/rules/validation";
import type { LinkInactiveReason } from "../../domain/schemas/payment-links";
import { lineCents, priceLineItems } from "./line-items";
import { ITEM_MESSAGES, priceCents } from "./items";
import { parseRule } from "../invoice-schedules/rules";

export const LINK_MESSAGES = {
  amountRequired: "A payment link needs an amount, line items or a price, unless its total is editable.",
  amountMismatch: (expected: string) => `The amount must equal what the link's items come to (${expected}).`,
  totalsDiffer: "The amount and link_meta.total differ.",
  editableWithItems: "A link with catalog line items has a fixed total: isTotalEditable cannot be true.",
  notPayable: (reason: LinkInactiveReason) =>
    reason === "expired"
      ? "This payment link has expired."
      : reason === "used_up"
        ? "This payment link has been used as many times as it may be."
        : "This payment link is not active.",
  totalFixed: (amount: string) => `The total of this link is fixed: ${amount}.`,
  frequencyRequired: "A link with rrule true needs link_meta.frequency: a word (monthly) or an RRULE (FREQ=MONTHLY).",
  frequencyStart: "A recurring link's schedule starts with the payment: leave DTSTART out of its rule.",
  recurringTokenizeOnly: "A link that only saves a payment method (tokenizeOnly) charges nothing, so it cannot recur.",
  tokenizeOnly: "This link saves a payment method without charging: send it to …/save, not …/pay.",
  notTokenizeOnly:
    "This link charges: send the payment method to …/pay (only a tokenizeOnly link saves without charging).",
} as const;

/** The frequencies a recurring link may name in words, as the RRULE each means. */
const FREQUENCY_WORDS: Record<string, string> = {
  daily: "FREQ=DAILY",
  weekly: "FREQ=WEEKLY",
  biweekly: "FREQ=WEEKLY;INTERVAL=2",
  monthly: "FREQ=MONTHLY",
  quarterly: "FREQ=MONTHLY;INTERVAL=3",
  yearly: "FREQ=YEARLY",
  annually: "FREQ=YEARLY",
};
/** A frequency that says the link is paid once (the real page's default choice). */
const ONCE = /^(once|one[- ]?time|none|single)?$/i;

/**
 * The rule a recurring link bills by, without DTSTART (its schedule starts at each payment), or
 * null for a link paid once. Recurring: `link_meta.rrule` is an RRULE string itself, or
 * `link_meta.frequency` names one (a word of FREQUENCY_WORDS or an RRULE); `rrule: true` says the
 * link recurs, so it needs a frequency. The rule is checked as a schedule's (./invoice-schedules),
 * from `now`; errors name `link_meta.frequency` (or `link_meta.rrule`).
 */
export function linkRecurrence(meta: Meta, now: Date, errors: FieldErrors): string | null {
  const fromRrule = typeof meta.rrule === "string" && !/^(true|false|1|0)?$/i.test(meta.rrule.trim());
  const field = fromRrule ? "link_meta.rrule" : "link_meta.frequency";
  const given = fromRrule ? String(meta.rrule).trim() : typeof meta.frequency === "string" ? meta.frequency.trim() : "";
  if (ONCE.test(given)) {
    if (meta.rrule === true || meta.rrule === "true" || meta.rrule === "1")
      addError(errors, "link_meta.frequency", LINK_MESSAGES.frequencyRequired);
    return null;
  }
  const rule = FREQUENCY_WORDS[given.toLowerCase()] ?? given.replace(/^RRULE:/i, "");
  if (/DTSTART/i.test(rule)) {
    addError(errors, field, LINK_MESSAGES.frequencyStart);
    return null;
  }
  const parsed = parseRule(rule, now);
  if ("error" in parsed) {
    addError(errors, field, parsed.error);
    return null;
  }
  if (meta.tokenizeOnly === true) addError(errors, "link_meta.tokenizeOnly", LINK_MESSAGES.recurringTokenizeOnly);
  return rule;
}

/** The words of a recurring link's rule ("every month"), for its page; null for a link paid once. */
export function recurrenceText(meta: Meta, now: Date): string | null {
  const rule = linkRecurrence(meta, now, {});
  if (!rule) return null;
  const parsed = parseRule(rule, now);
  return "error" in parsed ? null : parsed.rrule.toText();
}

type Meta = Record<string, unknown>;

/** Why the link cannot be paid at `now` (the merchant's sandbox time), or null when it can. */
export function inactiveReason(
  row: Pick<PaymentLinkRow, "active" | "expires_at" | "max_uses" | "uses">,
  now: string,
): LinkInactiveReason | null {
  if (row.active !== 1) return "inactive";
  if (row.expires_at !== null && row.expires_at <= now) return "expired";
  if (row.max_uses !== null && Number(row.uses) >= Number(row.max_uses)) return "used_up";
  return null;
}

/** Dollars given as a number or numeric string, > 0, in cents; the error named `field` otherwise. */
function positiveCents(value: unknown, field: string, errors: FieldErrors): number | undefined {
  const parsed = parseTotalCents(value);
  if ("error" in parsed) addError(errors, field, parsed.error.replace("total", field));
  return "cents" in parsed ? parsed.cents : undefined;
}

/** What the link's meta makes it cost, with the meta to store; undefined cents: the meta sets no price. */
export async function priceLinkMeta(
  ex: Executor,
  merchantId: string,
  meta: Meta,
  errors: FieldErrors,
): Promise<{ cents: number | undefined; meta: Meta }> {
  const priced = await priceLineItems(ex, merchantId, meta, errors);
  if (priced) {
    if (meta.isTotalEditable === true) addError(errors, "link_meta.isTotalEditable", LINK_MESSAGES.editableWithItems);
    return { cents: priced.totalCents, meta: priced.meta };
  }
  if (meta.price === undefined) return { cents: undefined, meta };
  const price = priceCents(meta.price);
  const quantity = meta.quantity === undefined ? { cents: 100 } : parseTotalCents(meta.quantity);
  const tax = meta.tax === undefined ? 0 : priceCents(meta.tax);
  if ("error" in quantity) addError(errors, "link_meta.quantity", "The quantity must be greater than 0.");
  // A price or tax the rules refuse is named, not taken as "no price" (7.111 was once ignored).
  if (price === undefined) addError(errors, "link_meta.price", ITEM_MESSAGES.priceInvalid);
  if (tax === undefined) addError(errors, "link_meta.tax", ITEM_MESSAGES.taxInvalid);
  if (price === undefined || tax === undefined || !("cents" in quantity)) return { cents: undefined, meta };
  return { cents: lineCents(price, quantity.cents) + tax, meta };
}

/**
 * The link's amount in cents from what the request gives (`amount`, `link_meta.total`) and what
 * its meta comes to; `current` is the stored amount of a link being updated without either.
 */
export function linkAmount(
  given: { amount: unknown; total: unknown },
  computed: number | undefined,
  editable: boolean,
  current: number | undefined,
  errors: FieldErrors,
): number {
  const amount = given.amount === undefined ? undefined : positiveCents(given.amount, "amount", errors);
  const total = given.total === undefined ? undefined : positiveCents(given.total, "link_meta.total", errors);
  if (amount !== undefined && total !== undefined && amount !== total)
    addError(errors, "amount", LINK_MESSAGES.totalsDiffer);
  const stated = amount ?? total;
  if (computed !== undefined) {
    if (stated !== undefined && stated !== computed)
      addError(errors, "amount", LINK_MESSAGES.amountMismatch(centsToNumber(computed).toFixed(2)));
    return computed;
  }
  if (stated !== undefined) return stated;
  if (given.amount !== undefined || given.total !== undefined) return 0; // its error is already there
  if (current !== undefined) return current;
  if (!editable) addError(errors, "amount", LINK_MESSAGES.amountRequired);
  return 0;
}

/** expires_at as stored: a date alone is its midnight. */
export function expiresAtOf(value: string | null): string | null {
  return value === null ? null : value.length === 10 ? `${value} 00:00:00` : value;
}
