import type { Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/invoices";
import type { InvoiceRow } from "../../storage/repositories/invoices";
import type { EventBus } from "../../domain/events";
import type { InvoiceRecord } from "../../domain/schemas/invoices";
import type { SandboxClock } from "../clock";
import type { TransactionRow, TransactionService } from "../transactions";
import { invoiceRecordFrom, invoiceRecords, type KnownInvoiceParts } from "./records";
import { columnsFromTransactions } from "./status";

/** An invoice row with the record built from it in the same unit of work (nothing changed since). */
export interface RowAndRecord {
  row: InvoiceRow;
  record: InvoiceRecord;
}

/** What a sync needs of the invoice service. */
export interface SyncDeps {
  clock: SandboxClock;
  events: EventBus<Executor>;
  transactions: TransactionService;
}

/**
 * What the caller of a sync already knows. `failedCharge`: a declined charge that was just made for
 * the invoice; `locked`: the row as the caller locked it in this unit of work (not locked and read
 * again); `known`: the invoice's transactions (and records, customers) the caller has since it
 * locked it (not read again); `sentAt`: an e-mail of the invoice goes out in this unit (pay()'s
 * receipt), so sent_at is set the first time, in the same UPDATE (no update_invoice for that
 * alone, as markSent emits none).
 */
export interface SyncFrom {
  failedCharge?: TransactionRow | null;
  locked?: InvoiceRow;
  known?: KnownInvoiceParts;
  sentAt?: string | null;
}

/**
 * Writes what the invoice's transactions say about it (./status.ts) and emits update_invoice
 * when anything changed; returns the row as written and its record then (undefined: nothing
 * changed).
 */
export async function syncInvoice(
  deps: SyncDeps,
  ex: Executor,
  merchantId: string,
  invoiceId: string,
  { failedCharge = null, locked, known, sentAt = null }: SyncFrom = {},
): Promise<RowAndRecord | undefined> {
  // Locked before its transactions are read: two refunds of its charges at once sync in turn.
  const row = locked ?? (await repo.lockInvoice(ex, merchantId, invoiceId));
  if (!row || row.status === "DELETED") return undefined;
  const now = () => deps.clock.timestamp(merchantId);
  const update = await columnsFromTransactions(ex, row, failedCharge, now, known?.transactions);
  const marksSent = sentAt !== null && !row.sent_at;
  if (Object.keys(update).length === 0) {
    if (marksSent) await repo.markInvoice(ex, merchantId, row.id, "sent_at", sentAt);
    return undefined;
  }
  if (marksSent) update.sent_at = sentAt;
  update.updated_at = now();
  await repo.updateInvoiceColumns(ex, row.id, update);
  // The row as that UPDATE left it (it wrote only these columns; undefined as NULL): not read back.
  const written = Object.fromEntries(Object.entries(update).map(([column, value]) => [column, value ?? null]));
  const fresh: InvoiceRow = { ...row, ...written };
  const record = known
    ? await invoiceRecordFrom(ex, deps.transactions, fresh, known)
    : (await invoiceRecords(ex, deps.transactions, [fresh]))[0]!;
  await deps.events.emit(ex, { merchantId, name: "update_invoice", record });
  return { row: fresh, record };
}
