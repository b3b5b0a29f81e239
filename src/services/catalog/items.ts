import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/items";
import { holdUntilCommit } from "../../storage/repositories/locks";
import type { ItemColumns, ItemFilters, ItemRow } from "../../storage/repositories/items";
import type { SandboxClock } from "../clock";
import type { EventBus } from "../../domain/events";
import { parseJson } from "../../lib/json";
import { centsToNumber } from "../../domain/money";
import type { Listing, PageRequest } from "../../domain/pagination";
import { ApiError, assertValid, invalidState, notFound } from "../../domain/errors";
import { addError, parseTotalCents, type FieldErrors } from "../../../packages/rules/validation";
import { MESSAGES } from "../../../packages/rules/messages";
import type { ItemBody, ItemRecord, ItemUpdateBody } from "../../domain/schemas/items";

export type { ItemFilters, ItemRow };
export type Item = ItemRecord;

/** Item messages, written once (the tests compare against these). */
export const ITEM_MESSAGES = {
  codeTaken: (code: string) => `The code "${code}" is already used by another item.`,
  notEnoughStock: (inStock: number, quantity: number) =>
    `Not enough stock: ${inStock} in stock, ${quantity} to take away. The stock never goes below 0.`,
  deleted: "The item was deleted.",
  outOfStock: (item: string, inStock: number, quantity: number) =>
    `Not enough stock of "${item}" for this payment: ${inStock} in stock, ${quantity} on the invoice.`,
  metaObject: "The meta must be an object or the JSON text of one.",
  priceInvalid: "The price must be 0 or more, with at most two decimals.",
  taxInvalid: "The tax must be 0 or more, with at most two decimals.",
} as const;

/** Cents of a price in dollars (0 allowed), or undefined when it is not one. */
export function priceCents(value: unknown): number | undefined {
  if (value === 0 || (typeof value === "string" && /^\s*0+(\.0+)?\s*$/.test(value))) return 0;
  const parsed = parseTotalCents(value);
  return "cents" in parsed ? parsed.cents : undefined;
}

export function itemRecord(row: ItemRow): Item {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    thumbnail_id: null,
    item: row.item,
    code: row.code,
    category: row.category,
    details: row.details,
    is_active: row.is_active === 1,
    is_taxable: row.is_taxable === 1,
    is_service: row.is_service === 1,
    is_subscription: false,
    is_discount: row.is_discount === 1,
    price: centsToNumber(Number(row.price_cents)),
    in_stock: Number(row.in_stock),
    low_stock_alert: row.low_stock_alert === null ? null : Number(row.low_stock_alert),
    meta: parseJson(row.meta, {}),
    files: [],
    thumbnail: null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

/** meta as stored: an object given as is or as JSON text; undefined when it is neither. */
function metaText(meta: unknown): string | undefined {
  const value = typeof meta === "string" ? parseJson<unknown>(meta, undefined) : meta;
  return value !== null && typeof value === "object" && !Array.isArray(value) ? JSON.stringify(value) : undefined;
}

/**
 * The catalog: items a merchant sells, with their stock. Vocabulary (docs/architecture.md,
 * "Services"): `get`, `find`, `list`, `codes`, `create`, `update`, `delete`; the domain verbs
 * `increment` and `decrement` (stock never below zero); `getRow`, `findRow`. Every change emits
 * create_item, update_item or delete_item with the record, in its unit of work.
 */
export class ItemService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
  ) {}

  /** GET /item/{id}: the item's record (deleted ones too), or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<Item> {
    return itemRecord(await this.getRow(ex, merchantId, id));
  }

  async find(merchantId: string, id: string, ex: Executor = this.db): Promise<Item | undefined> {
    const row = await this.findRow(ex, merchantId, id);
    return row && itemRecord(row);
  }

  async getRow(ex: Executor, merchantId: string, id: string): Promise<ItemRow> {
    const row = await this.findRow(ex, merchantId, id);
    if (!row) throw notFound("Item");
    return row;
  }

  findRow(ex: Executor, merchantId: string, id: string): Promise<ItemRow | undefined> {
    return repo.findItem(ex, merchantId, id);
  }

  /** GET /item: one page of the merchant's live items, newest first. */
  async list(merchantId: string, filters: ItemFilters, page: PageRequest): Promise<Listing<Item>> {
    const { rows, total } = await repo.listItems(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return { rows: rows.map(itemRecord), total };
  }

  /** GET /item/code: the codes of the live items. */
  codes(merchantId: string): Promise<string[]> {
    return repo.itemCodes(this.db, merchantId);
  }

  async create(merchantId: string, input: ItemBody): Promise<Item> {
    const errors: FieldErrors = {};
    const columns = this.columns(undefined, input, errors, this.clock.timestamp(merchantId));
    assertValid(errors);
    return this.db.transaction(async (tx) => {
      await this.checkCode(tx, merchantId, columns.code, undefined);
      const id = crypto.randomUUID();
      await repo.insertItem(tx, { ...columns, id, merchant_id: merchantId, created_at: columns.updated_at });
      return this.emit(tx, merchantId, id, "create_item");
    });
  }

  /** PUT /item/{id}: the given fields change. A deleted item is a 422 invalid_state. */
  async update(merchantId: string, id: string, input: ItemUpdateBody): Promise<Item> {
    return this.db.transaction(async (tx) => {
      const row = await this.liveRow(tx, merchantId, id);
      const errors: FieldErrors = {};
      const columns = this.columns(row, input, errors, this.clock.timestamp(merchantId));
      assertValid(errors);
      await this.checkCode(tx, merchantId, columns.code, row.id);
      await repo.updateItem(tx, row.id, columns);
      return this.emit(tx, merchantId, row.id, "update_item");
    });
  }

  /** DELETE /item/{id}: soft (deleted_at set; still readable by id, gone from lists and codes). */
  async delete(merchantId: string, id: string): Promise<Item> {
    return this.db.transaction(async (tx) => {
      const row = await this.getRow(tx, merchantId, id);
      if (row.deleted_at) return itemRecord(row);
      await repo.softDeleteItem(tx, row.id, this.clock.timestamp(merchantId));
      return this.emit(tx, merchantId, row.id, "delete_item");
    });
  }

  /** PUT /item/{id}/increment. */
  increment(merchantId: string, id: string, quantity: number | undefined): Promise<Item> {
    return this.changeStock(merchantId, id, quantity, 1);
  }

  /** PUT /item/{id}/decrement: a 422 (nothing written) when the stock would go below zero. */
  decrement(merchantId: string, id: string, quantity: number | undefined): Promise<Item> {
    return this.changeStock(merchantId, id, quantity, -1);
  }

  private async changeStock(merchantId: string, id: string, quantity: number | undefined, sign: 1 | -1): Promise<Item> {
    return this.db.transaction(async (tx) => {
      const row = await this.liveRow(tx, merchantId, id);
      if (quantity === undefined) assertValid({ quantity: [MESSAGES.required("quantity")] });
      const delta = sign * quantity!;
      // One conditional UPDATE: concurrent decrements each see the other's result (repo.addStock).
      if (!(await repo.addStock(tx, row.id, delta, this.clock.timestamp(merchantId)))) {
        const now = await this.getRow(tx, merchantId, id);
        if (now.deleted_at) throw invalidState(ITEM_MESSAGES.deleted);
        throw new ApiError("validation_error", ITEM_MESSAGES.notEnoughStock(Number(now.in_stock), -delta), {
          errors: { quantity: [ITEM_MESSAGES.notEnoughStock(Number(now.in_stock), -delta)] },
          in_stock: Number(now.in_stock),
        });
      }
      return this.emit(tx, merchantId, row.id, "update_item");
    });
  }

  /**
   * `meta.update_inventory` (the real member): an invoice paid with it set takes its catalog lines
   * out of stock, in the payment's unit of work — each stocked item (not a service) by its line's
   * quantity rounded up to a whole number. Not enough stock is a 422 invalid_state naming the item,
   * which undoes the whole payment. Emits update_item for each item taken from.
   */
  async takeStock(ex: Executor, merchantId: string, meta: Record<string, unknown>): Promise<void> {
    if (meta.update_inventory !== true || !Array.isArray(meta.lineItems)) return;
    for (const line of meta.lineItems as Record<string, unknown>[]) {
      if (typeof line?.id !== "string") continue;
      const row = await this.findRow(ex, merchantId, line.id);
      if (!row || row.is_service === 1) continue;
      const quantity = Math.ceil(Number(line.quantity ?? 1));
      if (!(quantity > 0)) continue;
      if (!(await repo.addStock(ex, row.id, -quantity, this.clock.timestamp(merchantId)))) {
        const now = await this.getRow(ex, merchantId, row.id);
        throw invalidState(ITEM_MESSAGES.outOfStock(now.item, Number(now.in_stock), quantity), { item_id: row.id });
      }
      await this.emit(ex, merchantId, row.id, "update_item");
    }
  }

  private async liveRow(ex: Executor, merchantId: string, id: string): Promise<ItemRow> {
    const row = await this.getRow(ex, merchantId, id);
    if (row.deleted_at) throw invalidState(ITEM_MESSAGES.deleted);
    return row;
  }

  /** A code is unique among live items: checked under a lock on it, so two creates take turns. */
  private async checkCode(ex: Executor, merchantId: string, code: string, self: string | undefined): Promise<void> {
    if (code === "") return;
    await holdUntilCommit(ex, "item-code", merchantId, code);
    const holder = await repo.findItemByCode(ex, merchantId, code);
    if (holder && holder.id !== self) {
      throw new ApiError("validation_error", ITEM_MESSAGES.codeTaken(code), {
        errors: { code: [ITEM_MESSAGES.codeTaken(code)] },
      });
    }
  }

  /** The columns of a create (no `row`) or of an update of `row`, collecting the input's errors. */
  private columns(
    row: ItemRow | undefined,
    input: ItemUpdateBody,
    errors: FieldErrors,
    now: string,
  ): ItemColumns & { updated_at: string } {
    const flag = (value: boolean | undefined, current: number | undefined, fallback: boolean) =>
      value !== undefined ? (value ? 1 : 0) : (current ?? (fallback ? 1 : 0));
    let price = row ? Number(row.price_cents) : 0;
    if (input.price !== undefined) {
      const cents = priceCents(input.price);
      if (cents === undefined) addError(errors, "price", ITEM_MESSAGES.priceInvalid);
      else price = cents;
    }
    let meta = row?.meta ?? "{}";
    if (input.meta !== undefined) {
      const text = metaText(input.meta);
      if (text === undefined) addError(errors, "meta", ITEM_MESSAGES.metaObject);
      else meta = text;
    }
    const name = input.item?.trim() ?? row?.item ?? "";
    if (name === "") addError(errors, "item", "The item field is required.");
    return {
      item: name,
      code: input.code?.trim() ?? row?.code ?? "",
      category: input.category?.trim() ?? row?.category ?? "",
      details: input.details ?? row?.details ?? "",
      is_active: flag(input.is_active, row?.is_active, true),
      is_taxable: flag(input.is_taxable, row?.is_taxable, false),
      is_service: flag(input.is_service, row?.is_service, false),
      is_discount: flag(input.is_discount, row?.is_discount, false),
      price_cents: price,
      in_stock: input.in_stock ?? (row ? Number(row.in_stock) : 0),
      low_stock_alert: input.low_stock_alert !== undefined ? input.low_stock_alert : (row?.low_stock_alert ?? null),
      meta,
      updated_at: now,
    };
  }

  private async emit(
    ex: Executor,
    merchantId: string,
    id: string,
    name: "create_item" | "update_item" | "delete_item",
  ): Promise<Item> {
    const record = itemRecord(await this.getRow(ex, merchantId, id));
    await this.events.emit(ex, { merchantId, name, record });
    return record;
  }
}
