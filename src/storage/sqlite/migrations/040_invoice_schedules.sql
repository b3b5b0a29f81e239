-- Issue 30. Invoice schedules: an iCalendar RRULE that makes an invoice at each occurrence the
-- merchant's sandbox clock passes (src/services/invoice-schedules/). next_run_at is the cursor: the
-- unit of work that makes an occurrence's invoice moves it on and writes the occurrence's row, whose
-- key (schedule_id, occurrence_at) lets no occurrence happen twice, whatever process runs it.
CREATE TABLE invoice_schedules (
  id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  customer_id TEXT NOT NULL REFERENCES customers(id),
  payment_method_id TEXT REFERENCES payment_methods(id),
  rule TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  total_cents INTEGER NOT NULL,
  meta TEXT NOT NULL DEFAULT '{}',
  url TEXT NOT NULL,
  email_notification INTEGER NOT NULL DEFAULT 1,
  files TEXT NOT NULL DEFAULT '[]',
  run_count INTEGER NOT NULL DEFAULT 0,
  next_run_at TEXT,
  last_run_at TEXT,
  last_invoice_status TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX invoice_schedules_by_merchant ON invoice_schedules(merchant_id, created_at);
-- The clock runner's read: the schedules with an occurrence to come.
CREATE INDEX invoice_schedules_due ON invoice_schedules(merchant_id, next_run_at)
  WHERE next_run_at IS NOT NULL AND active = 1 AND deleted_at IS NULL;

CREATE TABLE invoice_schedule_runs (
  schedule_id TEXT NOT NULL REFERENCES invoice_schedules(id),
  merchant_id TEXT NOT NULL REFERENCES merchants(id),
  occurrence_at TEXT NOT NULL,
  invoice_id TEXT NOT NULL REFERENCES invoices(id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (schedule_id, occurrence_at)
);
CREATE INDEX invoices_by_schedule ON invoices(schedule_id, created_at) WHERE schedule_id IS NOT NULL;
