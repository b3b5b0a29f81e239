/**
 * The reads of the statement reports (GET /query/statement/v3/daily-sales, …/volumes/*) and the
 * team summary (GET /query/statistics/teamSummary), over what is stored.
 */
import { sql, type Executor } from "../database";
import { insertionOrder } from "./order";
import type { BinType } from "../../domain/surcharge";

/** A sale (a successful, unvoided charge or capture) with what the reports group it by. */
export interface SaleRow {
  created_at: string;
  method: "card" | "bank";
  total_cents: number;
  /** The part of total_cents that is a credit card surcharge (0 for none). */
  surcharge_cents: number;
  card_type: string | null;
  /** The card's funding as its BIN says (CREDIT, DEBIT or PREPAID); null for a bank account. */
  bin_type: BinType | null;
}

/**
 * The merchant's sales created from `from` to `to` (timestamps, both inclusive), in the order made:
 * charges and captures that succeeded and were not voided (a pre_auth counts by its capture).
 */
export function salesBetween(ex: Executor, merchantId: string, from: string, to: string): Promise<SaleRow[]> {
  return ex.all<SaleRow>(
    sql`SELECT t.created_at, t.method, t.total_cents, t.surcharge_cents, p.card_type, p.bin_type
        FROM transactions t JOIN payment_methods p ON p.id = t.payment_method_id
        WHERE t.merchant_id = ${merchantId} AND t.created_at >= ${from} AND t.created_at <= ${to}
          AND t.type IN ('charge', 'capture') AND t.success = 1 AND t.is_voided = 0
        ORDER BY t.created_at, ${insertionOrder(ex, "t")}`,
  );
}

export interface TeamCounts {
  charge_count_success: number;
  refund_count_success: number;
  charge_count_fail: number;
  invoice_count: number;
  scheduled_invoice_count: number;
  customer_count: number;
}

/** The counts of the team summary, in one query. */
export async function teamCounts(ex: Executor, merchantId: string): Promise<TeamCounts> {
  const row = await ex.get<Record<keyof TeamCounts, number | string>>(
    sql`SELECT
          (SELECT COUNT(*) FROM transactions WHERE merchant_id = ${merchantId} AND type IN ('charge', 'pre_auth')
             AND success = 1) AS charge_count_success,
          (SELECT COUNT(*) FROM transactions WHERE merchant_id = ${merchantId} AND type = 'refund'
             AND success = 1) AS refund_count_success,
          (SELECT COUNT(*) FROM transactions WHERE merchant_id = ${merchantId} AND type IN ('charge', 'pre_auth')
             AND success = 0) AS charge_count_fail,
          (SELECT COUNT(*) FROM invoices WHERE merchant_id = ${merchantId} AND deleted_at IS NULL) AS invoice_count,
          (SELECT COUNT(*) FROM invoices WHERE merchant_id = ${merchantId} AND deleted_at IS NULL
             AND schedule_id IS NOT NULL) AS scheduled_invoice_count,
          (SELECT COUNT(*) FROM customers WHERE merchant_id = ${merchantId} AND deleted_at IS NULL) AS customer_count`,
  );
  return {
    charge_count_success: Number(row?.charge_count_success ?? 0),
    refund_count_success: Number(row?.refund_count_success ?? 0),
    charge_count_fail: Number(row?.charge_count_fail ?? 0),
    invoice_count: Number(row?.invoice_count ?? 0),
    scheduled_invoice_count: Number(row?.scheduled_invoice_count ?? 0),
    customer_count: Number(row?.customer_count ?? 0),
  };
}
