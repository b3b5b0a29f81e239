import { sql, type Executor, type Sql } from "../database";
import { sameMerchant } from "./keys";
import { containsText, insertionOrder } from "./order";

export interface PaymentLinkRow {
  id: string;
  merchant_id: string;
  common_name: string;
  url: string;
  link_meta: string;
  amount_cents: number;
  active: number;
  expires_at: string | null;
  max_uses: number | null;
  uses: number;
  total_sales_cents: number;
  total_transactions: number;
  created_at: string;
  updated_at: string | null;
  deleted_at: string | null;
}

/** The columns a create or an update writes. */
export type PaymentLinkColumns = Pick<
  PaymentLinkRow,
  "common_name" | "url" | "link_meta" | "amount_cents" | "active" | "expires_at" | "max_uses"
>;

export interface PaymentLinkFilters {
  active?: boolean;
  /** Each: part of the name or of link_meta (its memo), ignoring case. */
  keywords: string[];
  sort: "created_at" | "updated_at" | "common_name" | "amount" | "total_sales";
  order: "asc" | "desc";
}

const SORT_COLUMNS: Record<PaymentLinkFilters["sort"], string> = {
  created_at: "created_at",
  updated_at: "updated_at",
  common_name: "common_name",
  amount: "amount_cents",
  total_sales: "total_sales_cents",
};

/** A live link of this merchant. */
export function findLink(ex: Executor, merchantId: string, id: string): Promise<PaymentLinkRow | undefined> {
  return ex.get<PaymentLinkRow>(
    sql`SELECT * FROM payment_links WHERE id = ${id} AND ${sameMerchant(ex, merchantId)} AND deleted_at IS NULL`,
  );
}

/** A live link of this merchant, locked until the unit of work ends (a payment's or a stats update's turn). */
export function lockLink(ex: Executor, merchantId: string, id: string): Promise<PaymentLinkRow | undefined> {
  const lock = sql.raw(ex.dialect === "postgres" ? " FOR UPDATE" : "");
  return ex.get<PaymentLinkRow>(
    sql`SELECT * FROM payment_links WHERE id = ${id} AND ${sameMerchant(ex, merchantId)} AND deleted_at IS NULL${lock}`,
  );
}

/** A live link of any merchant (its hosted page, where the unguessable id is the capability). */
export function locateLink(ex: Executor, id: string): Promise<PaymentLinkRow | undefined> {
  return ex.get<PaymentLinkRow>(sql`SELECT * FROM payment_links WHERE id = ${id} AND deleted_at IS NULL`);
}

function whereOf(ex: Executor, merchantId: string, f: PaymentLinkFilters): Sql {
  const parts: Sql[] = [sql`merchant_id = ${merchantId}`, sql`deleted_at IS NULL`];
  if (f.active !== undefined) parts.push(sql`active = ${f.active ? 1 : 0}`);
  for (const keyword of f.keywords) {
    parts.push(sql`(${containsText(ex, sql`common_name`, keyword)} OR ${containsText(ex, sql`link_meta`, keyword)})`);
  }
  return sql.join(parts, " AND ");
}

/** A page of live links, in the asked order (then insertion order), with the total. */
export async function listLinks(
  ex: Executor,
  merchantId: string,
  filters: PaymentLinkFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: PaymentLinkRow[]; total: number }> {
  const where = whereOf(ex, merchantId, filters);
  const total = (await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM payment_links WHERE ${where}`))!.n;
  const direction = sql.raw(filters.order === "asc" ? "ASC" : "DESC");
  const rows = await ex.all<PaymentLinkRow>(
    sql`SELECT * FROM payment_links WHERE ${where}
        ORDER BY ${sql.raw(SORT_COLUMNS[filters.sort])} ${direction}, ${insertionOrder(ex)} ${direction}
        LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows, total: Number(total) };
}

export async function insertLink(
  ex: Executor,
  c: PaymentLinkColumns & { id: string; merchant_id: string; created_at: string },
): Promise<void> {
  await ex.run(
    sql`INSERT INTO payment_links (id, merchant_id, common_name, url, link_meta, amount_cents, active, expires_at,
          max_uses, created_at)
        VALUES (${c.id}, ${c.merchant_id}, ${c.common_name}, ${c.url}, ${c.link_meta}, ${c.amount_cents}, ${c.active},
          ${c.expires_at}, ${c.max_uses}, ${c.created_at})`,
  );
}

export async function updateLink(ex: Executor, id: string, c: PaymentLinkColumns, now: string): Promise<void> {
  await ex.run(
    sql`UPDATE payment_links SET common_name = ${c.common_name}, url = ${c.url}, link_meta = ${c.link_meta},
          amount_cents = ${c.amount_cents}, active = ${c.active}, expires_at = ${c.expires_at},
          max_uses = ${c.max_uses}, updated_at = ${now}
        WHERE id = ${id}`,
  );
}

/** One sale through the link: a use, its amount in the total sales, one more transaction. */
export async function recordSale(ex: Executor, id: string, totalCents: number, now: string): Promise<void> {
  await ex.run(
    sql`UPDATE payment_links SET uses = uses + 1, total_sales_cents = total_sales_cents + ${totalCents},
          total_transactions = total_transactions + 1, updated_at = ${now}
        WHERE id = ${id}`,
  );
}

/** One use of a link that charges nothing (a tokenizeOnly link's saved payment method). */
export async function recordUse(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE payment_links SET uses = uses + 1, updated_at = ${now} WHERE id = ${id}`);
}

export async function softDeleteLink(ex: Executor, id: string, now: string): Promise<void> {
  await ex.run(sql`UPDATE payment_links SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
}
