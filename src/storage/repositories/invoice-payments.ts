/**
 * Outside payments: an invoice marked paid in cash or by check (POST /invoice/{id}/pay/{method}).
 * No transaction is charged; each is a row here, and the invoice keeps their sum in
 * outside_paid_cents, which its status counts beside its transactions.
 */
import { sql, type Executor } from "../database";
import { sameMerchant } from "./keys";

export interface OutsidePaymentRow {
  id: string;
  merchant_id: string;
  invoice_id: string;
  method: "cash" | "check";
  total_cents: number;
  check_number: string | null;
  driver_license: string | null;
  driver_license_state: string | null;
  payment_phone: string | null;
  payment_note: string | null;
  created_at: string;
}

/** Stores the payment and adds it to the invoice's outside_paid_cents, in the caller's unit of work. */
export async function insertOutsidePayment(ex: Executor, p: OutsidePaymentRow): Promise<void> {
  await ex.run(
    sql`INSERT INTO invoice_payments (id, merchant_id, invoice_id, method, total_cents, check_number, driver_license,
          driver_license_state, payment_phone, payment_note, created_at)
        VALUES (${p.id}, ${p.merchant_id}, ${p.invoice_id}, ${p.method}, ${p.total_cents}, ${p.check_number},
          ${p.driver_license}, ${p.driver_license_state}, ${p.payment_phone}, ${p.payment_note}, ${p.created_at})`,
  );
  await ex.run(
    sql`UPDATE invoices SET outside_paid_cents = outside_paid_cents + ${p.total_cents}
        WHERE id = ${p.invoice_id} AND merchant_id = ${p.merchant_id}`,
  );
}

/** The invoice's outside payments, oldest first. */
export function outsidePaymentsOf(ex: Executor, merchantId: string, invoiceId: string): Promise<OutsidePaymentRow[]> {
  return ex.all<OutsidePaymentRow>(
    sql`SELECT * FROM invoice_payments WHERE invoice_id = ${invoiceId} AND ${sameMerchant(ex, merchantId)}
        ORDER BY created_at, id`,
  );
}
