-- Issue 30. The real transaction record's schedule_id: the invoice schedule whose invoice the
-- transaction paid (an occurrence's own charge, the customer paying that invoice later, a charge
-- naming it by invoice_id) and, copied from their parent, its captures, voids and refunds. Null
-- for every other transaction. 045 rebuilt transactions with an explicit column list before this,
-- so the column is added here, after it, on every database. No foreign key, as invoices.schedule_id
-- has none: a reset and a snapshot restore order tables without minding schedules.
ALTER TABLE transactions ADD COLUMN schedule_id TEXT;
