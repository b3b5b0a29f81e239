/**
 * Catalog items (POST /item …): the record, as the real service answers it less its `user`, and
 * the request bodies, whose rules are all here (docs/contract.md §5, "Catalog items").
 */
import { t } from "elysia";
import { Integer, Nullable, NullableTimestamp, Timestamp, TWO_DECIMALS_CHECKED_BY_SERVICE } from "./records";

const Flag = (description: string) => t.Optional(t.Boolean({ description }));

/** A price in dollars: a number or a numeric string, 0 or more, at most two decimals. */
export const PriceInput = t.Union(
  [t.Number({ minimum: 0, ...TWO_DECIMALS_CHECKED_BY_SERVICE() }), t.String({ pattern: "^\\s*\\d+(\\.\\d+)?\\s*$" })],
  {
    description: "Dollars: 0 or more, at most two decimals; a number or a numeric string",
    examples: [7.11, "7.11"],
  },
);

/** The item record of docs/contract.md §6. */
export const ItemRecord = t.Object(
  {
    id: t.String(),
    merchant_id: t.String(),
    thumbnail_id: t.Null({ description: "Always null: the sandbox keeps no files" }),
    item: t.String({ description: "The item's name" }),
    code: t.String({ description: "The merchant's code (SKU); unique among live items, empty for none" }),
    category: t.String(),
    details: t.String(),
    is_active: t.Boolean(),
    is_taxable: t.Boolean(),
    is_service: t.Boolean(),
    is_subscription: t.Boolean({ description: "Always false in the sandbox" }),
    is_discount: t.Boolean({ description: "On an invoice or payment link the line takes its amount off" }),
    price: t.Number(),
    in_stock: Integer({ minimum: 0 }),
    low_stock_alert: Nullable(Integer()),
    meta: t.Record(t.String(), t.Unknown()),
    files: t.Array(t.Unknown(), { maxItems: 0, description: "Always empty" }),
    thumbnail: t.Null(),
    created_at: Timestamp,
    updated_at: Timestamp,
    deleted_at: NullableTimestamp,
  },
  { title: "Item" },
);
export type ItemRecord = typeof ItemRecord.static;

const itemFields = {
  code: t.Optional(t.String({ maxLength: 64, description: "Unique among the merchant's live items" })),
  category: t.Optional(t.String({ maxLength: 255 })),
  details: t.Optional(t.String({ maxLength: 2000 })),
  price: t.Optional(PriceInput),
  in_stock: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000, description: "Never below 0" })),
  low_stock_alert: t.Optional(t.Union([t.Integer({ minimum: 0, maximum: 1_000_000_000 }), t.Null()])),
  is_active: Flag("Default true; an inactive item cannot be put on an invoice or a payment link"),
  is_taxable: Flag("Default false"),
  is_service: Flag("Default false"),
  is_discount: Flag("Default false"),
  meta: t.Optional(
    t.Union([t.Record(t.String(), t.Unknown()), t.String()], {
      description: "An object, or a JSON text of one (as the real service takes it)",
    }),
  ),
};

/** POST /item. */
export const ItemBody = t.Object(
  { item: t.String({ minLength: 1, maxLength: 255, description: "The item's name" }), ...itemFields },
  { title: "ItemRequest" },
);
export type ItemBody = typeof ItemBody.static;

/** PUT /item/{id}: the fields given change, the others keep their value. */
export const ItemUpdateBody = t.Object(
  { item: t.Optional(t.String({ minLength: 1, maxLength: 255 })), ...itemFields },
  { title: "ItemUpdateRequest" },
);
export type ItemUpdateBody = typeof ItemUpdateBody.static;

const BooleanQuery = t.Optional(
  t.Union([t.Literal("true"), t.Literal("false"), t.Literal("1"), t.Literal("0")], {
    description: "true/false or 1/0",
  }),
);

export const ItemListQuery = {
  code: t.Optional(t.String({ description: "This code exactly" })),
  price: t.Optional(t.String({ pattern: "^\\d+(\\.\\d{1,2})?$", description: "This price exactly" })),
  quantity: t.Optional(t.String({ pattern: "^\\d{1,9}$", description: "At least this many in stock" })),
  is_service: BooleanQuery,
  is_active: BooleanQuery,
  is_taxable: BooleanQuery,
  is_discount: BooleanQuery,
  user_id: t.Optional(t.String({ description: "Taken and ignored: one API user per merchant" })),
  name: t.Optional(t.String({ description: "Part of the name, ignoring case" })),
  description: t.Optional(t.String({ description: "Part of the details, ignoring case" })),
  meta: t.Optional(t.String({ description: "Part of the meta's JSON text, ignoring case" })),
};

const Quantity = t.Integer({ minimum: 1, maximum: 1_000_000_000, description: "How many to add or take away" });

/**
 * PUT /item/{id}/increment and /decrement: `quantity` in the query, as the real service takes it,
 * or in the JSON body; one of them is required (422 naming quantity), the query's wins.
 */
export const StockQuery = t.Object({ quantity: t.Optional(Quantity) });
export const StockBody = t.Optional(t.Object({ quantity: t.Optional(Quantity) }, { title: "StockRequest" }));

export const ItemCodes = t.Object(
  { data: t.Array(t.String(), { description: "The codes of the merchant's live items, sorted" }) },
  { title: "ItemCodes" },
);

export const ItemIdParams = t.Object({ id: t.String() });
