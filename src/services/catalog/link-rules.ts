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
import { priceCents } from "./items";

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
} as const;

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
