import { sql, type Executor, type Sql } from "../database";
import { sameMerchant } from "./keys";
import { containsText, insertionOrder } from "./order";

export interface ItemRow {
  id: string;
  merchant_id: string;
  item: string;
  code: string;
  category: string;
  details: string;
  is_active: number;
  is_taxable: number;
  is_service: number;
  is_discount: number;
  price_cents: number;
  in_stock: number;
  low_stock_alert: number | null;
  meta: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The columns a create or an update writes. */
export type ItemColumns = Omit<ItemRow, "id" | "merchant_id" | "created_at" | "deleted_at">;

/** GET /item's filters (each optional; text ones match a part, ignoring case). */
export interface ItemFilters {
  code?: string;
  priceCents?: number;
  /** At least this many in stock. */
  minStock?: number;
  isService?: boolean;
  isActive?: boolean;
  isTaxable?: boolean;
  isDiscount?: boolean;
  name?: string;
  description?: string;
  meta?: string;
}

/** An item of this merchant (deleted ones included). */
export function findItem(ex: Executor, merchantId: string, id: string): Promise<ItemRow | undefined> {
  return ex.get<ItemRow>(sql`SELECT * FROM items WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`);
}

/** Items of this merchant by id, in one query (deleted ones included). */
export async function itemsByIds(
  ex: Executor,
  merchantId: string,
  ids: readonly string[],
): Promise<Map<string, ItemRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await ex.all<ItemRow>(
    sql`SELECT * FROM items WHERE merchant_id = ${merchantId} AND id IN (${sql.join(unique.map((id) => sql`${id}`))})`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The live item with this code, if any (codes are unique among live items). */
export function findItemByCode(ex: Executor, merchantId: string, code: string): Promise<ItemRow | undefined> {
  return ex.get<ItemRow>(
    sql`SELECT * FROM items WHERE merchant_id = ${merchantId} AND code = ${code} AND deleted_at IS NULL LIMIT 1`,
  );
}

/** The codes of the merchant's live items (non-empty), sorted. */
export async function itemCodes(ex: Executor, merchantId: string): Promise<string[]> {
  const rows = await ex.all<{ code: string }>(
    sql`SELECT DISTINCT code FROM items WHERE merchant_id = ${merchantId} AND deleted_at IS NULL AND code <> ''
        ORDER BY code`,
  );
  return rows.map((row) => row.code);
}

function filterClause(ex: Executor, merchantId: string, f: ItemFilters): Sql {
  const parts: Sql[] = [sql`merchant_id = ${merchantId}`, sql`deleted_at IS NULL`];
  const flag = (column: string, value: boolean | undefined) => {
    if (value !== undefined) parts.push(sql`${sql.raw(column)} = ${value ? 1 : 0}`);
  };
  if (f.code !== undefined) parts.push(sql`code = ${f.code}`);
  if (f.priceCents !== undefined) parts.push(sql`price_cents = ${f.priceCents}`);
  if (f.minStock !== undefined) parts.push(sql`in_stock >= ${f.minStock}`);
  flag("is_service", f.isService);
  flag("is_active", f.isActive);
  flag("is_taxable", f.isTaxable);
  flag("is_discount", f.isDiscount);
  if (f.name) parts.push(containsText(ex, sql`item`, f.name));
  if (f.description) parts.push(containsText(ex, sql`details`, f.description));
  if (f.meta) parts.push(containsText(ex, sql`meta`, f.meta));
  return sql.join(parts, " AND ");
}

/** A page of live items matching the filters, newest first, with the total. */
export async function listItems(
  ex: Executor,
  merchantId: string,
  filters: ItemFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: ItemRow[]; total: number }> {
  const where = filterClause(ex, merchantId, filters);
  const total = (await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM items WHERE ${where}`))!.n;
  const rows = await ex.all<ItemRow>(
    sql`SELECT * FROM items WHERE ${where}
        ORDER BY created_at DESC, ${insertionOrder(ex)} DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows, total: Number(total) };
}

export async function insertItem(
  ex: Executor,
  c: ItemColumns & { id: string; merchant_id: string; created_at: string },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO items (id, merchant_id, item, code, category, details, is_active, is_taxable, is_service,
          is_discount, price_cents, in_stock, low_stock_alert, meta, created_at, updated_at)
        VALUES (${c.id}, ${c.merchant_id}, ${c.item}, ${c.code}, ${c.category}, ${c.details}, ${c.is_active},
          ${c.is_taxable}, ${c.is_service}, ${c.is_discount}, ${c.price_cents}, ${c.in_stock}, ${c.low_stock_alert},
          ${c.meta}, ${c.created_at}, ${c.updated_at})`,
  );
}

export async function updateItem(ex: Executor, id: string, c: ItemColumns): Promise<void> {
  await ex.run(
    sql`UPDATE items SET item = ${c.item}, code = ${c.code}, category = ${c.category}, details = ${c.details},
          is_active = ${c.is_active}, is_taxable = ${c.is_taxable}, is_service = ${c.is_service},
          is_discount = ${c.is_discount}, price_cents = ${c.price_cents}, in_stock = ${c.in_stock},
          low_stock_alert = ${c.low_stock_alert}, meta = ${c.meta}, updated_at = ${c.updated_at}
        WHERE id = ${id}`,
  );
}

/**
 * Adds `delta` (negative: takes away) to a live item's stock in one statement, only when the
 * stock stays at zero or above: true when it did. Two decrements at once cannot both pass on
 * the same stock (each UPDATE sees the other's committed result, or waits for it).
 */
export async function addStock(ex: Executor, id: string, delta: number, now: string): Promise<boolean> {
  const { changes } = await ex.run(
    sql`UPDATE items SET in_stock = in_stock + ${delta}, updated_at = ${now}
        WHERE id = ${id} AND deleted_at IS NULL AND in_stock + ${delta} >= 0`,
  );
  return changes > 0;
}

export async function softDeleteItem(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE items SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
}
