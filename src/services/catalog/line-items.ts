/**
 * Line items from the catalog: an invoice's (or a payment link's) `meta.lineItems` entries that
 * name a catalog item by `id`. The arithmetic (docs/contract.md §5, "Line items from the catalog"):
 *
 * - each entry: `quantity` (default 1; > 0, at most two decimals) × `price` (the entry's when it
 *   gives one, else the catalog item's; 0 or more, at most two decimals), in cents, rounded half
 *   up to a whole cent; a discount item's line (`is_discount`) is taken off;
 * - subtotal = the sum of the lines (never below 0); a given `meta.subtotal` must equal it;
 * - total = subtotal + `meta.tax` + `meta.shippingAmount` (each 0 when absent).
 *
 * The entries are kept with the catalog's `item` and `details` filled in where they were left out,
 * the `price` used and the `quantity` (1 when absent); `meta.subtotal` is written.
 */
import type { Executor } from "../../storage/database";
import { itemsByIds } from "../../storage/repositories/items";
import { centsToNumber } from "../../domain/money";
import { addError, parseTotalCents, type FieldErrors } from "../../../packages/rules/validation";
import { priceCents } from "./items";

export const LINE_ITEM_MESSAGES = {
  unknownItem: (id: string) => `No catalog item has the id "${id}".`,
  deletedItem: (id: string) => `The catalog item "${id}" was deleted.`,
  inactiveItem: (id: string) => `The catalog item "${id}" is not active.`,
  entry: "Each line item must be an object.",
  quantity: "The quantity must be greater than 0, with at most two decimals.",
  price: "The price must be 0 or more, with at most two decimals.",
  priceRequired: "A line item that names no catalog item needs a price.",
  negative: "The line items add up to less than 0.",
  amount: (field: string) => `The ${field} must be 0 or more, with at most two decimals.`,
  subtotal: (subtotal: string) => `The subtotal must equal the sum of the line items (${subtotal}).`,
  total: (total: string) => `The total must equal the line items' subtotal plus tax and shipping (${total}).`,
} as const;

export interface PricedLineItems {
  /** The meta to store: entries filled in from the catalog, `subtotal` written. */
  meta: Record<string, unknown>;
  subtotalCents: number;
  /** subtotal + tax + shipping. */
  totalCents: number;
}

type Entry = Record<string, unknown>;

const isObject = (value: unknown): value is Entry =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The catalog item ids the entries name (a non-empty string `id`). */
function catalogIds(entries: readonly unknown[]): string[] {
  return entries.flatMap((entry) =>
    isObject(entry) && typeof entry.id === "string" && entry.id.trim() !== "" ? [entry.id] : [],
  );
}

/** price × quantity/100 in cents, rounded half up (exact: BigInt, whatever the size). */
export function lineCents(priceCentsValue: number, quantityHundredths: number): number {
  return Number((BigInt(priceCentsValue) * BigInt(quantityHundredths) + 50n) / 100n);
}

/** An optional amount member of meta (tax, shippingAmount), in cents; 0 when absent. */
function optionalCents(meta: Entry, field: string, errors: FieldErrors): number {
  const value = meta[field];
  if (value === undefined || value === null || value === "") return 0;
  const cents = priceCents(value);
  if (cents === undefined) addError(errors, `meta.${field}`, LINE_ITEM_MESSAGES.amount(field));
  return cents ?? 0;
}

/**
 * Prices `meta.lineItems` when an entry names a catalog item of the merchant, adding what breaks
 * a rule to `errors` (field names `meta.lineItems.<index>.<member>`). Undefined when meta has no
 * such entry: free-form line items are kept as given, unchecked, as before the catalog.
 */
export async function priceLineItems(
  ex: Executor,
  merchantId: string,
  meta: unknown,
  errors: FieldErrors,
): Promise<PricedLineItems | undefined> {
  if (!isObject(meta) || !Array.isArray(meta.lineItems)) return undefined;
  const entries = meta.lineItems as unknown[];
  const ids = catalogIds(entries);
  if (ids.length === 0) return undefined;
  const catalog = await itemsByIds(ex, merchantId, ids);
  let subtotal = 0;
  const priced = entries.map((entry, index) => {
    const at = `meta.lineItems.${index}`;
    if (!isObject(entry)) {
      addError(errors, at, LINE_ITEM_MESSAGES.entry);
      return entry;
    }
    const id = typeof entry.id === "string" && entry.id.trim() !== "" ? entry.id : undefined;
    const item = id === undefined ? undefined : catalog.get(id);
    if (id !== undefined && !item) addError(errors, `${at}.id`, LINE_ITEM_MESSAGES.unknownItem(id));
    else if (item?.deleted_at) addError(errors, `${at}.id`, LINE_ITEM_MESSAGES.deletedItem(id!));
    else if (item && item.is_active !== 1) addError(errors, `${at}.id`, LINE_ITEM_MESSAGES.inactiveItem(id!));
    const quantity = entry.quantity ?? 1;
    const hundredths = parseTotalCents(quantity);
    if ("error" in hundredths) addError(errors, `${at}.quantity`, LINE_ITEM_MESSAGES.quantity);
    let price: number | undefined;
    if (entry.price !== undefined && entry.price !== null) {
      price = priceCents(entry.price);
      if (price === undefined) addError(errors, `${at}.price`, LINE_ITEM_MESSAGES.price);
    } else if (item) price = Number(item.price_cents);
    else if (id === undefined) addError(errors, `${at}.price`, LINE_ITEM_MESSAGES.priceRequired);
    if (price !== undefined && "cents" in hundredths) {
      const amount = lineCents(price, hundredths.cents);
      subtotal += item?.is_discount === 1 ? -amount : amount;
    }
    return {
      ...entry,
      item: entry.item ?? item?.item ?? "",
      details: entry.details ?? item?.details ?? "",
      quantity,
      ...(price === undefined ? {} : { price: centsToNumber(price) }),
    };
  });
  if (subtotal < 0) addError(errors, "meta.lineItems", LINE_ITEM_MESSAGES.negative);
  if (meta.subtotal !== undefined && meta.subtotal !== null && priceCents(meta.subtotal) !== subtotal) {
    addError(errors, "meta.subtotal", LINE_ITEM_MESSAGES.subtotal(centsToNumber(subtotal).toFixed(2)));
  }
  const total = subtotal + optionalCents(meta, "tax", errors) + optionalCents(meta, "shippingAmount", errors);
  return {
    meta: { ...meta, lineItems: priced, subtotal: centsToNumber(subtotal) },
    subtotalCents: subtotal,
    totalCents: total,
  };
}

/** Adds the total's error when `totalCents` is not what the priced line items add up to. */
export function checkLineItemsTotal(priced: PricedLineItems, totalCents: number | undefined, errors: FieldErrors) {
  if (totalCents !== undefined && totalCents !== priced.totalCents && !errors.total) {
    addError(errors, "total", LINE_ITEM_MESSAGES.total(centsToNumber(priced.totalCents).toFixed(2)));
  }
}
