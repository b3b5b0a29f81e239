-- Issue 28. POST /invoice/{id}/pay/{method}: an invoice marked paid in cash or by check. No card or
-- bank transaction is charged; the payment is recorded here, and the invoice's outside_paid_cents
-- (the sum of its rows here) counts toward total_paid beside its transactions
-- (src/services/invoices/status.ts), kept on the invoice so a sync reads nothing more.
ALTER TABLE invoices ADD COLUMN outside_paid_cents INTEGER NOT NULL DEFAULT 0;

CREATE TABLE invoice_payments (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  invoice_id TEXT NOT NULL REFERENCES invoices(id),
  method TEXT NOT NULL CHECK (method IN ('cash', 'check')),
  total_cents INTEGER NOT NULL,
  check_number TEXT,
  driver_license TEXT,
  driver_license_state TEXT,
  payment_phone TEXT,
  payment_note TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX invoice_payments_of_invoice ON invoice_payments(invoice_id, merchant_id, created_at);
CREATE INDEX invoice_payments_by_merchant ON invoice_payments(merchant_id, created_at);
