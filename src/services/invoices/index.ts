import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/invoices";
import type { InvoiceFilters, InvoiceRow } from "../../storage/repositories/invoices";
import type { SandboxClock } from "../clock";
import type { EventBus, SandboxEvent } from "../../domain/events";
import { parseJson } from "../../lib/json";
import { centsToNumber } from "../../domain/money";
import type { Listing, PageRequest } from "../../domain/pagination";
import { MESSAGES } from "../../../packages/rules/messages";
import { addError, parseTotalCents, type AvsSettings } from "../../../packages/rules/validation";
import type { MerchantCustomField } from "../merchant-options";
import type { CustomerService } from "../customers";
import { ApiError, assertValid, invalidState, notFound } from "../../domain/errors";
import type { PaymentMethodRow, PaymentMethodService } from "../payment-methods";
import type { TransactionRow, TransactionService } from "../transactions";
import type { InvoiceBody, InvoiceRecord, PublicInvoiceBody } from "../../domain/schemas/invoices";
import { invoiceRecordFrom, invoiceRecords, SETTLED_STATUSES, type KnownInvoiceParts } from "./records";
import { chargeInvoice, lockForPayment, type PayOptions } from "./pay";
import { defaultInvoiceUrl, dueAtOf, receiptAddress, validateMerchantInvoice, validatePublicInvoice } from "./rules";
import type { InvoiceValues } from "./rules";
import { syncInvoice, type RowAndRecord, type SyncFrom } from "./sync";
import { invoiceColumns, priceCatalogLines, type InvoiceChanges } from "./changes";
import { recordOutsidePayment, type OutsidePaymentInput } from "./outside-payments";

export type { InvoiceFilters, InvoiceRow };
export { SETTLED_STATUSES } from "./records";
export { defaultInvoiceUrl, receiptAddress } from "./rules";
export type { PayOptions } from "./pay";

export type Invoice = InvoiceRecord;

/** What an invoice made by a schedule's occurrence is: the merchant's, no one present, paid whole. */
const SCHEDULED = { isWebpayment: false, isMerchantPresent: false, isPartialPaymentEnabled: false, dueAt: null };

export type { RowAndRecord } from "./sync";

/**
 * Invoices: created by pay() (public routes) or by the merchant, paid by a charge for the full
 * balance. The status follows the invoice's transactions: a listener on the transaction events
 * recomputes it (./status.ts) whenever a charge, capture, refund or void touches a transaction of
 * an invoice, whichever route made it (POST /charge with invoice_id, refunds, voids; pay() syncs
 * its own charge). The input rules are in ./rules.ts, the record shape in ./records.ts.
 *
 * Vocabulary (docs/architecture.md, "Services"): `get` (the record by id, or a 404), `find` (the
 * record, or undefined), `list` (a page), `create`, `createPublic` (pay()'s step 3), `delete`; the
 * domain verbs `pay`, `markSent`, `markViewed`. For a unit of work that goes on with the stored
 * row: `getRow`, `findRow`, `findHostedRow` (any merchant's, for the hosted pages), and the record
 * builders `toRecord`, `toRecords`.
 */
export class InvoiceService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
    private readonly transactions: TransactionService,
  ) {
    // Only transaction events of an invoice's transactions concern invoices; the others (most
    // charges) pass without waiting for anything, and so does pay()'s charge: pay() syncs itself.
    events.on((ex, event) =>
      (event.name === "create_transaction" || event.name === "update_transaction") &&
      (event.record as { invoice_id?: string }).invoice_id &&
      !event.invoiceSyncedByCaller
        ? this.onEvent(ex, event)
        : undefined,
    );
  }

  /** GET /invoice/{id}: the invoice's record, or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<Invoice> {
    return this.toRecord(ex, await this.getRow(ex, merchantId, id));
  }

  /** The invoice's record, or undefined when the merchant has none with this id. */
  async find(merchantId: string, id: string, ex: Executor = this.db): Promise<Invoice | undefined> {
    const row = await this.findRow(ex, merchantId, id);
    return row && this.toRecord(ex, row);
  }

  /** GET /invoice: one page of the merchant's invoices, newest first. */
  async list(merchantId: string, filters: InvoiceFilters, page: PageRequest): Promise<Listing<Invoice>> {
    const { rows, total } = await repo.listInvoices(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return { rows: await this.toRecords(this.db, rows), total };
  }

  /** The stored row, or a 404: for a unit of work that goes on with it. */
  async getRow(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow> {
    const row = await this.findRow(ex, merchantId, id);
    if (!row) throw notFound("Invoice");
    return row;
  }

  /** The stored row, or undefined. */
  findRow(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow | undefined> {
    return repo.findInvoice(ex, merchantId, id);
  }

  /** An invoice of any merchant by id: the hosted pages, where the unguessable id is the capability. */
  findHostedRow(id: string): Promise<InvoiceRow | undefined> {
    return repo.locateInvoice(this.db, id);
  }

  /** The API record of a row (with its customer and transactions). */
  async toRecord(ex: Executor, row: InvoiceRow): Promise<Invoice> {
    return (await this.toRecords(ex, [row]))[0]!;
  }

  /** The API records of rows (./records.ts: a fixed number of queries for any number). */
  toRecords(ex: Executor, rows: readonly InvoiceRow[]): Promise<Invoice[]> {
    return invoiceRecords(ex, this.transactions, rows);
  }

  /** The invoice, locked for a change until the unit of work ends (repo.lockInvoice), or 404. */
  private async lockRow(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow> {
    const row = await repo.lockInvoice(ex, merchantId, id);
    if (!row) throw notFound("Invoice");
    return row;
  }

  /**
   * pay()'s step 3: a DRAFT invoice for the payment method's customer, in the caller's unit of
   * work. Returns the row and the record built for its event (the answer: building it again would
   * cost as much as the insert).
   */
  async createPublic(
    ex: Executor,
    merchantId: string,
    input: PublicInvoiceBody,
    settings: AvsSettings,
    publicUrl: string,
  ): Promise<RowAndRecord> {
    if (input.invoice_id) return this.reusePublic(ex, merchantId, input, settings);
    assertValid(await validatePublicInvoice(ex, this.customers, merchantId, input, settings));
    const pmId = input.payment_method_id;
    const { pm, customer: charged } = await this.paymentMethods.chargeableWithCustomer(ex, merchantId, pmId);
    const customerId = input.customer_id?.trim() || pm.customer_id;
    // The payment method's customer, read with it, is usually the invoice's: not read again.
    const customer = customerId === charged.id ? charged : undefined;
    const email = input.email?.trim() || (customer ?? (await this.customers.getRow(ex, merchantId, customerId))).email;
    return this.insert(ex, merchantId, {
      customerId,
      paymentMethodId: pm.id,
      totalCents: (parseTotalCents(input.total) as { cents: number }).cents,
      meta: (input.meta ?? {}) as Record<string, unknown>,
      url: input.url ?? defaultInvoiceUrl(publicUrl),
      sendReceipt: input.send_receipt ?? true,
      email,
      isWebpayment: true,
      isMerchantPresent: null,
      isPartialPaymentEnabled: false,
      dueAt: null,
      customer,
    });
  }

  /**
   * pay() for an existing open invoice (the hosted payment page): the same rules, then the
   * invoice is returned with the new payment method (and e-mail, when given) instead of a new one.
   */
  private async reusePublic(
    ex: Executor,
    merchantId: string,
    input: PublicInvoiceBody,
    settings: AvsSettings,
  ): Promise<RowAndRecord> {
    const invoice = (await repo.lockInvoice(ex, merchantId, input.invoice_id!)) ?? null;
    if (!invoice) throw new ApiError("not_found", "Invoice not found.", { param: "invoice_id" });
    if (invoice.status === "DELETED" || SETTLED_STATUSES.includes(invoice.status)) {
      throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
    }
    const errors = await validatePublicInvoice(ex, this.customers, merchantId, input, settings);
    const total = parseTotalCents(input.total);
    const balance = invoice.total_cents - invoice.total_paid_cents;
    if (!errors.total && "cents" in total && total.cents !== balance) {
      addError(errors, "total", MESSAGES.invoiceTotalMismatch(centsToNumber(balance).toFixed(2)));
    }
    assertValid(errors);
    const pm = await this.paymentMethods.chargeable(ex, merchantId, input.payment_method_id);
    const email = input.email?.trim() || invoice.email;
    const now = this.clock.timestamp(merchantId);
    await repo.setInvoicePaymentMethod(ex, invoice.id, pm.id, email, now);
    const row: InvoiceRow = { ...invoice, payment_method_id: pm.id, email, updated_at: now }; // as written
    const record = await this.toRecord(ex, row);
    await this.events.emit(ex, { merchantId, name: "update_invoice", record });
    return { row, record };
  }

  /**
   * POST /invoice: an invoice the merchant makes for one of its customers, in the caller's unit of
   * work. Returns the row and the record built for its event.
   */
  async create(
    ex: Executor,
    merchantId: string,
    input: InvoiceBody,
    publicUrl: string,
    requiredFields: readonly MerchantCustomField[] = [],
  ): Promise<RowAndRecord> {
    const { errors, meta } = await validateMerchantInvoice(ex, this.customers, merchantId, input, requiredFields);
    assertValid(errors);
    const pm = input.payment_method_id
      ? await this.paymentMethods.chargeable(ex, merchantId, input.payment_method_id)
      : null;
    const email = input.email?.trim() || (await this.customers.getRow(ex, merchantId, input.customer_id)).email;
    return this.insert(ex, merchantId, {
      customerId: input.customer_id,
      paymentMethodId: pm?.id ?? null,
      totalCents: (parseTotalCents(input.total) as { cents: number }).cents,
      meta,
      url: input.url ?? defaultInvoiceUrl(publicUrl),
      sendReceipt: input.send_receipt ?? true,
      email,
      isWebpayment: false,
      isMerchantPresent: true,
      isPartialPaymentEnabled: input.is_partial_payment_enabled ?? false,
      dueAt: dueAtOf(input.due_at),
    });
  }

  /** An invoice schedule's occurrence (src/services/invoice-schedules/runner.ts), in its unit of work: create_invoice. */
  createScheduled(ex: Executor, merchantId: string, v: Omit<InvoiceValues, keyof typeof SCHEDULED>) {
    return this.insert(ex, merchantId, { ...v, ...SCHEDULED });
  }

  private async insert(ex: Executor, merchantId: string, v: InvoiceValues): Promise<RowAndRecord> {
    const id = crypto.randomUUID();
    const now = this.clock.timestamp(merchantId);
    const row = await repo.insertInvoice(ex, {
      id,
      merchant_id: merchantId,
      customer_id: v.customerId,
      payment_method_id: v.paymentMethodId,
      total_cents: v.totalCents,
      is_partial_payment_enabled: v.isPartialPaymentEnabled ? 1 : 0,
      is_webpayment: v.isWebpayment ? 1 : 0,
      is_merchant_present: v.isMerchantPresent === null ? null : v.isMerchantPresent ? 1 : 0,
      send_receipt: v.sendReceipt ? 1 : 0,
      email: v.email,
      meta: JSON.stringify(v.meta),
      url: v.url,
      created_at: now,
      updated_at: now,
      invoice_date_at: now,
      due_at: v.dueAt,
      schedule_id: v.scheduleId ?? null,
    });
    // A new invoice has no transactions yet: its record needs at most its customer.
    const record = await invoiceRecordFrom(ex, this.transactions, row, {
      transactions: [],
      records: new Map(),
      customers: new Map(v.customer ? [[v.customer.id, v.customer]] : []),
    });
    await this.events.emit(ex, { merchantId, name: "create_invoice", record });
    return { row, record };
  }

  /**
   * Charges the payment method for the invoice's full balance, in the caller's unit of work, then
   * syncs the invoice with it (PAID or ATTEMPTED; its update_invoice follows the charge's
   * create_transaction). Returns the charge and the invoice after it, with the invoice's record
   * when the sync built it.
   */
  async pay(
    ex: Executor,
    merchantId: string,
    id: string,
    paymentMethodId: string,
    options: PayOptions,
  ): Promise<{ invoice: InvoiceRow; transaction: TransactionRow; paymentMethod: PaymentMethodRow; record?: Invoice }> {
    const start = await lockForPayment(ex, this.paymentMethods, merchantId, id, paymentMethodId);
    // The attempt's receipt is e-mailed with the payment (src/services/mail/receipts.ts); the charge
    // records it from the start, so its answer, replays and webhooks all agree.
    const receiptEmailAt = receiptAddress(start.invoice) ? this.clock.timestamp(merchantId) : null;
    const { transaction, pm, known } = await chargeInvoice(ex, this.transactions, merchantId, start, {
      ...options,
      receiptEmailAt,
    });
    // The invoice is still as locked above, its transactions those read then and this charge. A
    // receipt stored with the payment marks it sent in the sync's own UPDATE.
    const sentAt = options.sendsReceipt?.(start.invoice, transaction) ? this.clock.timestamp(merchantId) : null;
    const failedCharge = transaction.success ? null : transaction;
    const synced = await this.sync(ex, merchantId, id, { failedCharge, locked: start.invoice, known, sentAt });
    if (synced) return { invoice: synced.row, transaction, paymentMethod: pm, record: synced.record };
    return { invoice: await this.getRow(ex, merchantId, id), transaction, paymentMethod: pm };
  }

  /** POST /invoice/{id}/pay/{method}: paid in cash or by check (./outside-payments.ts); emits update_invoice. */
  async payOutside(merchantId: string, id: string, input: OutsidePaymentInput): Promise<Invoice> {
    return this.db.transaction(async (tx) => {
      await recordOutsidePayment(tx, await this.lockRow(tx, merchantId, id), input, this.clock.timestamp(merchantId));
      return (await this.sync(tx, merchantId, id))?.record ?? this.get(merchantId, id, tx);
    });
  }

  /** Keeps invoices in step with their transactions (see the class comment). */
  private async onEvent(ex: Executor, event: SandboxEvent): Promise<void> {
    const record = event.record as { invoice_id?: string; parent_id?: string | null; success?: boolean };
    if (!record.invoice_id) return;
    const failedAttempt = event.name === "create_transaction" && !record.parent_id && record.success === false;
    const failed = failedAttempt ? await this.transactions.findRow(ex, event.merchantId, event.record.id) : undefined;
    await this.sync(ex, event.merchantId, record.invoice_id, { failedCharge: failed });
  }

  /** Keeps the invoice in step with its transactions (./sync.ts). */
  private sync(
    ex: Executor,
    merchantId: string,
    invoiceId: string,
    from?: SyncFrom,
  ): Promise<RowAndRecord | undefined> {
    const { clock, events, transactions } = this;
    return syncInvoice({ clock, events, transactions }, ex, merchantId, invoiceId, from);
  }

  /**
   * PUT /invoice/{id}: the fields its state lets change (./changes.ts), then the status its
   * transactions give it with the new total (a partly paid invoice whose total comes down to what
   * was paid is PAID). Emits update_invoice.
   */
  async update(merchantId: string, id: string, changes: InvoiceChanges): Promise<Invoice> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, merchantId, id);
      const columns = invoiceColumns(row, changes);
      await priceCatalogLines(tx, merchantId, row, changes, columns);
      if (changes.payment_method_id !== undefined)
        columns.payment_method_id = (
          await this.paymentMethods.chargeable(tx, merchantId, changes.payment_method_id)
        ).id;
      await repo.editInvoice(tx, row.id, { ...columns, updated_at: this.clock.timestamp(merchantId) });
      const synced = await this.sync(tx, merchantId, id);
      if (synced) return synced.record;
      const record = await this.get(merchantId, id, tx);
      await this.events.emit(tx, { merchantId, name: "update_invoice", record });
      return record;
    });
  }

  /**
   * Soft delete of an invoice nothing was paid on: status DELETED, deleted_at set, no longer
   * payable; it stays readable. Emits update_invoice. Paid invoices are refunded or voided instead.
   */
  async delete(merchantId: string, id: string): Promise<Invoice> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, merchantId, id);
      if (row.status === "DELETED") return this.toRecord(tx, row);
      if (row.total_paid_cents > 0 || SETTLED_STATUSES.includes(row.status)) {
        throw invalidState(`The invoice is ${row.status}: refund or void its payment instead of deleting it.`, {
          status: row.status,
        });
      }
      const now = this.clock.timestamp(merchantId);
      await repo.softDeleteInvoice(tx, id, now);
      const record = await this.get(merchantId, id, tx);
      await this.events.emit(tx, { merchantId, name: "update_invoice", record });
      return record;
    });
  }

  /** Marks the invoice as e-mailed (sent_at) the first time a receipt or invoice e-mail goes out. */
  async markSent(merchantId: string, id: string, ex: Executor = this.db): Promise<void> {
    await repo.markInvoice(ex, merchantId, id, "sent_at", this.clock.timestamp(merchantId));
  }

  /** Marks the invoice as viewed by its customer (the hosted pages). */
  async markViewed(merchantId: string, id: string): Promise<void> {
    await repo.markInvoice(this.db, merchantId, id, "viewed_at", this.clock.timestamp(merchantId));
  }
}
