import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/invoices";
import type { InvoiceFilters, InvoiceRow } from "../storage/repositories/invoices";
import { customersByIds } from "../storage/repositories/customers";
import { capturedCents, transactionsOfInvoice, transactionsOfInvoices } from "../storage/repositories/transactions";
import type { SandboxClock } from "./clock";
import type { EventBus, SandboxEvent } from "../domain/events";
import { parseJson } from "../lib/json";
import { centsToNumber } from "../domain/money";
import { paginate, type Page, type PageRequest } from "../domain/pagination";
import { MESSAGES } from "../../packages/rules/messages";
import {
  addError,
  isValidEmail,
  validateAvs,
  validateCustomerFields,
  validateMeta,
  validateTotal,
  parseTotalCents,
  type AvsSettings,
  type FieldErrors,
} from "../../packages/rules/validation";
import { checkRequiredCustomFields, type MerchantCustomField } from "./merchant-options";
import { customerRecord, type CustomerService } from "./customers";
import { ApiError, assertValid, invalidState, notFound } from "../domain/errors";
import type { PaymentMethodService } from "./payment-methods";
import type { TransactionRow, TransactionService } from "./transactions";
import type { InvoiceBody, InvoiceRecord, InvoiceStatus, PublicInvoiceBody } from "../domain/schemas/invoices";

export type { InvoiceFilters, InvoiceRow };

export type Invoice = InvoiceRecord;

/** Statuses after which nothing is due: the invoice was paid, and maybe refunded or voided since. */
export const SETTLED_STATUSES: readonly InvoiceStatus[] = ["PAID", "PARTIALLY_REFUNDED", "REFUNDED", "VOIDED"];

export interface PayOptions {
  /** The transaction's source: "webpayment" for pay() and the hosted page, "api" for merchant calls. */
  source: string;
  isMerchantPresent: boolean;
}

/** The default hosted invoice address prefix: the invoice is at url + id. */
/** The address a pay() attempt of this invoice e-mails its receipt to, or null when it sends none. */
export function receiptAddress(invoice: Pick<InvoiceRow, "send_receipt" | "email">): string | null {
  return invoice.send_receipt === 1 && invoice.email && isValidEmail(invoice.email) ? invoice.email : null;
}

export function defaultInvoiceUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/hosted/invoice/`;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/;

function checkSendReceipt(input: Record<string, unknown>, errors: FieldErrors): void {
  if (input.send_receipt !== undefined && typeof input.send_receipt !== "boolean") {
    addError(errors, "send_receipt", MESSAGES.mustBeBoolean("send_receipt"));
  }
}

/**
 * Invoices: created by pay() (public routes) or by the merchant, paid by a charge for the full
 * balance. The status follows the invoice's transactions: a listener on the transaction events
 * recomputes it whenever a charge, capture, refund or void touches a transaction of an invoice,
 * whichever route made it (pay, POST /charge with invoice_id, refunds, voids).
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
    // charges) pass without waiting for anything.
    events.on((ex, event) =>
      (event.name === "create_transaction" || event.name === "update_transaction") &&
      (event.record as { invoice_id?: string }).invoice_id
        ? this.onEvent(ex, event)
        : undefined,
    );
  }

  async find(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow | null> {
    return (await repo.findInvoice(ex, merchantId, id)) ?? null;
  }

  async get(ex: Executor, merchantId: string, id: string): Promise<InvoiceRow> {
    const row = await this.find(ex, merchantId, id);
    if (!row) throw notFound("Invoice");
    return row;
  }

  /** An invoice of any merchant by id: the hosted pages, where the unguessable id is the capability. */
  async locate(id: string): Promise<InvoiceRow | null> {
    return (await repo.locateInvoice(this.db, id)) ?? null;
  }

  /** The invoice's own (top-level) transactions: successful ones first, each in creation order. */
  transactionsOf(ex: Executor, row: InvoiceRow): Promise<TransactionRow[]> {
    return transactionsOfInvoice(ex, row.merchant_id, row.id);
  }

  /**
   * The API records of invoices, each with its customer and transactions: a fixed number of
   * queries for any number of invoices (their transactions, those transactions' records, the customers).
   */
  async records(ex: Executor, rows: readonly InvoiceRow[]): Promise<Invoice[]> {
    if (rows.length === 0) return [];
    const byInvoice = await transactionsOfInvoices(
      ex,
      rows[0]!.merchant_id,
      rows.map((row) => row.id),
    );
    const transactions = [...byInvoice.values()].flat();
    const records = new Map(
      (await this.transactions.records(ex, transactions)).map((record, index) => [transactions[index]!.id, record]),
    );
    const customers = await customersByIds(
      ex,
      rows.map((row) => row.customer_id),
    );
    return rows.map((row) => {
      const customer = customers.get(row.customer_id);
      if (!customer) throw notFound("Customer");
      return invoiceRecord(
        row,
        customerRecord(customer),
        (byInvoice.get(row.id) ?? []).map((t) => records.get(t.id)!),
      );
    });
  }

  async record(ex: Executor, row: InvoiceRow): Promise<Invoice> {
    return (await this.records(ex, [row]))[0]!;
  }

  async recordOf(ex: Executor, merchantId: string, id: string): Promise<Invoice> {
    return this.record(ex, await this.get(ex, merchantId, id));
  }

  /** An invoice's record, or null when the merchant has none with this id. */
  async findRecord(merchantId: string, id: string): Promise<Invoice | null> {
    const row = await this.find(this.db, merchantId, id);
    return row ? this.record(this.db, row) : null;
  }

  /** The record of a row read outside a unit of work (the hosted pages). */
  recordFor(row: InvoiceRow): Promise<Invoice> {
    return this.record(this.db, row);
  }

  /** GET /invoice/{id}. */
  show(merchantId: string, id: string): Promise<Invoice> {
    return this.recordOf(this.db, merchantId, id);
  }

  async list(merchantId: string, filters: InvoiceFilters, page: PageRequest, url: string): Promise<Page<Invoice>> {
    const { rows, total } = await repo.listInvoices(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return paginate(await this.records(this.db, rows), total, page, url);
  }

  /**
   * The rules of pay()'s invoice step: the same ones the browser library runs on extraDetails
   * (packages/rules/validation.ts), minus the card and bank fields, which tokenize already checked.
   */
  async validatePublic(
    ex: Executor,
    merchantId: string,
    input: PublicInvoiceBody,
    settings: AvsSettings,
  ): Promise<FieldErrors> {
    const raw = input as Record<string, unknown>;
    const errors: FieldErrors = {};
    const hasCustomer = input.customer_id !== undefined && input.customer_id.trim() !== "";
    if (hasCustomer) {
      // A given customer's fields are ignored; only the names stay required (as in validateExtraDetails).
      validateCustomerFields(
        { firstname: input.firstname, lastname: input.lastname },
        { requireNames: true, requireContact: false },
        errors,
      );
      if (!(await this.customers.find(ex, merchantId, input.customer_id!))) {
        addError(errors, "customer_id", MESSAGES.customerNotFound);
      }
    } else {
      validateCustomerFields(raw, { requireNames: true, requireContact: true }, errors);
    }
    validateAvs(raw, settings, errors);
    validateTotal(raw, errors);
    checkSendReceipt(raw, errors);
    validateMeta(input.meta, errors);
    return errors;
  }

  /** pay()'s step 3: a DRAFT invoice for the payment method's customer, in the caller's unit of work. */
  async createPublic(
    ex: Executor,
    merchantId: string,
    input: PublicInvoiceBody,
    settings: AvsSettings,
    publicUrl: string,
  ): Promise<InvoiceRow> {
    if (input.invoice_id) return this.reusePublic(ex, merchantId, input, settings);
    assertValid(await this.validatePublic(ex, merchantId, input, settings));
    const pm = await this.paymentMethods.chargeable(ex, merchantId, input.payment_method_id);
    const customerId = input.customer_id?.trim() || pm.customer_id;
    const email = input.email?.trim() || (await this.customers.get(ex, merchantId, customerId)).email;
    return this.insert(ex, merchantId, {
      customerId,
      paymentMethodId: pm.id,
      totalCents: (parseTotalCents(input.total) as { cents: number }).cents,
      meta: input.meta ?? {},
      url: input.url ?? defaultInvoiceUrl(publicUrl),
      sendReceipt: input.send_receipt ?? true,
      email,
      isWebpayment: true,
      isMerchantPresent: null,
      isPartialPaymentEnabled: false,
      dueAt: null,
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
  ): Promise<InvoiceRow> {
    const invoice = await this.find(ex, merchantId, input.invoice_id!);
    if (!invoice) throw new ApiError("not_found", "Invoice not found.", { param: "invoice_id" });
    if (invoice.status === "DELETED" || SETTLED_STATUSES.includes(invoice.status)) {
      throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
    }
    const errors = await this.validatePublic(ex, merchantId, input, settings);
    const total = parseTotalCents(input.total);
    const balance = invoice.total_cents - invoice.total_paid_cents;
    if (!errors.total && "cents" in total && total.cents !== balance) {
      addError(errors, "total", MESSAGES.invoiceTotalMismatch(centsToNumber(balance).toFixed(2)));
    }
    assertValid(errors);
    const pm = await this.paymentMethods.chargeable(ex, merchantId, input.payment_method_id);
    const email = input.email?.trim() || invoice.email;
    await repo.setInvoicePaymentMethod(ex, invoice.id, pm.id, email, await this.clock.timestamp(merchantId));
    const row = await this.get(ex, merchantId, invoice.id);
    await this.events.emit(ex, { merchantId, name: "update_invoice", record: await this.record(ex, row) });
    return row;
  }

  /** POST /invoice: an invoice the merchant makes for one of its customers, in the caller's unit of work. */
  async createForMerchant(
    ex: Executor,
    merchantId: string,
    input: InvoiceBody,
    publicUrl: string,
    requiredFields: readonly MerchantCustomField[] = [],
  ): Promise<InvoiceRow> {
    const raw = input as Record<string, unknown>;
    const errors: FieldErrors = {};
    if (!(await this.customers.find(ex, merchantId, input.customer_id)))
      addError(errors, "customer_id", MESSAGES.customerNotFound);
    validateCustomerFields({ email: input.email }, { requireNames: false, requireContact: false }, errors);
    validateTotal(raw, errors);
    checkSendReceipt(raw, errors);
    validateMeta(input.meta, errors);
    // The merchant's Advanced Customization fields marked required (src/services/merchant-options.ts).
    checkRequiredCustomFields(input.meta, requiredFields, errors);
    if (input.due_at !== undefined && !TIMESTAMP.test(input.due_at)) {
      addError(errors, "due_at", "The due_at must be a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DD HH:MM:SS).");
    }
    assertValid(errors);
    const pm = input.payment_method_id
      ? await this.paymentMethods.chargeable(ex, merchantId, input.payment_method_id)
      : null;
    const email = input.email?.trim() || (await this.customers.get(ex, merchantId, input.customer_id)).email;
    return this.insert(ex, merchantId, {
      customerId: input.customer_id,
      paymentMethodId: pm?.id ?? null,
      totalCents: (parseTotalCents(input.total) as { cents: number }).cents,
      meta: input.meta ?? {},
      url: input.url ?? defaultInvoiceUrl(publicUrl),
      sendReceipt: input.send_receipt ?? true,
      email,
      isWebpayment: false,
      isMerchantPresent: true,
      isPartialPaymentEnabled: input.is_partial_payment_enabled ?? false,
      dueAt: input.due_at === undefined ? null : input.due_at.length === 10 ? `${input.due_at} 00:00:00` : input.due_at,
    });
  }

  private async insert(
    ex: Executor,
    merchantId: string,
    v: {
      customerId: string;
      paymentMethodId: string | null;
      totalCents: number;
      meta: Record<string, unknown>;
      url: string;
      sendReceipt: boolean;
      email: string;
      isWebpayment: boolean;
      isMerchantPresent: boolean | null;
      isPartialPaymentEnabled: boolean;
      dueAt: string | null;
    },
  ): Promise<InvoiceRow> {
    const id = crypto.randomUUID();
    const now = await this.clock.timestamp(merchantId);
    await repo.insertInvoice(ex, {
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
    });
    const row = await this.get(ex, merchantId, id);
    await this.events.emit(ex, { merchantId, name: "create_invoice", record: await this.record(ex, row) });
    return row;
  }

  /**
   * Charges the payment method for the invoice's full balance, in the caller's unit of work. The
   * transaction listener moves the invoice to PAID or ATTEMPTED. Returns the charge and the
   * invoice after it.
   */
  async pay(
    ex: Executor,
    merchantId: string,
    id: string,
    paymentMethodId: string,
    options: PayOptions,
  ): Promise<{ invoice: InvoiceRow; transaction: TransactionRow }> {
    const invoice = await this.get(ex, merchantId, id);
    if (invoice.status === "DELETED" || invoice.deleted_at) throw invalidState("The invoice was deleted.");
    if (SETTLED_STATUSES.includes(invoice.status)) {
      throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
    }
    const balance = invoice.total_cents - invoice.total_paid_cents;
    if (balance <= 0) throw invalidState("Nothing is due on this invoice.", { status: invoice.status });
    const { row: transaction } = await this.transactions.charge(ex, merchantId, {
      paymentMethodId,
      totalCents: balance,
      preAuth: false,
      meta: parseJson(invoice.meta, {}),
      invoiceId: invoice.id,
      source: options.source,
      isMerchantPresent: options.isMerchantPresent,
      // The attempt's receipt is e-mailed right after the commit (src/services/mail/receipts.ts); the
      // charge records it from the start, so its answer, replays and webhooks all agree.
      receiptEmailAt: receiptAddress(invoice) ? await this.clock.timestamp(merchantId) : null,
    });
    return { invoice: await this.get(ex, merchantId, id), transaction };
  }

  /** Keeps invoices in step with their transactions (see the class comment). */
  private async onEvent(ex: Executor, event: SandboxEvent): Promise<void> {
    const record = event.record as { invoice_id?: string; parent_id?: string | null; success?: boolean };
    if (!record.invoice_id) return;
    const failedAttempt = event.name === "create_transaction" && !record.parent_id && record.success === false;
    await this.sync(
      ex,
      event.merchantId,
      record.invoice_id,
      failedAttempt ? (event.record as { id: string }).id : null,
    );
  }

  /**
   * Recomputes status, total_paid, paid_at and the attempt fields from the invoice's
   * transactions, and emits update_invoice when anything changed. `failedChargeId` is a declined
   * charge that was just made for it.
   */
  async sync(ex: Executor, merchantId: string, invoiceId: string, failedChargeId: string | null = null): Promise<void> {
    const row = await this.find(ex, merchantId, invoiceId);
    if (!row || row.status === "DELETED") return;
    const next: repo.InvoiceSyncColumns = {};
    let paidCents = 0;
    let refundedCents = 0;
    let voidedCents = 0;
    let lastPaymentMethod: string | null = null;
    for (const t of await this.transactionsOf(ex, row)) {
      if (t.success !== 1) continue;
      if (t.is_voided === 1) {
        voidedCents += t.total_cents;
        continue;
      }
      const gross = t.type === "charge" ? t.total_cents : t.type === "pre_auth" ? await capturedCents(ex, t.id) : 0;
      if (gross === 0) continue;
      paidCents += gross;
      refundedCents += t.total_refunded_cents;
      lastPaymentMethod = t.payment_method_id;
    }
    const netCents = Math.max(0, paidCents - refundedCents);
    let status: InvoiceStatus = row.status;
    if (refundedCents > 0) status = netCents > 0 ? "PARTIALLY_REFUNDED" : "REFUNDED";
    else if (paidCents > 0 && netCents >= row.total_cents) status = "PAID";
    else if (paidCents === 0 && voidedCents > 0) status = "VOIDED";
    else if (row.status !== "DRAFT" && row.status !== "ATTEMPTED") status = "DRAFT";
    next.status = status;
    next.total_paid_cents = netCents;
    if (status === "PAID" && !row.paid_at) next.paid_at = await this.clock.timestamp(merchantId);
    if (lastPaymentMethod) next.payment_method_id = lastPaymentMethod;
    if (paidCents > 0 || voidedCents > 0) {
      next.payment_attempt_failed = 0;
      next.payment_attempt_message = "";
    }
    if (failedChargeId) {
      const failed = await this.transactions.find(ex, merchantId, failedChargeId);
      if (failed && !SETTLED_STATUSES.includes(status)) {
        next.status = "ATTEMPTED";
        next.payment_attempt_failed = 1;
        next.payment_attempt_message = failed.message ?? "Declined.";
        next.payment_method_id = failed.payment_method_id;
      }
    }
    const changed = (Object.keys(next) as (keyof repo.InvoiceSyncColumns)[]).filter((key) => next[key] !== row[key]);
    if (changed.length === 0) return;
    const update: repo.InvoiceSyncColumns = {};
    for (const key of changed) (update as Record<string, unknown>)[key] = next[key];
    update.updated_at = await this.clock.timestamp(merchantId);
    await repo.updateInvoiceColumns(ex, row.id, update);
    await this.events.emit(ex, {
      merchantId,
      name: "update_invoice",
      record: await this.recordOf(ex, merchantId, row.id),
    });
  }

  /**
   * Soft delete of an invoice nothing was paid on: status DELETED, deleted_at set, no longer
   * payable; it stays readable. Emits update_invoice. Paid invoices are refunded or voided instead.
   */
  async delete(merchantId: string, id: string): Promise<Invoice> {
    return this.db.transaction(async (tx) => {
      const row = await this.get(tx, merchantId, id);
      if (row.status === "DELETED") return this.record(tx, row);
      if (row.total_paid_cents > 0 || SETTLED_STATUSES.includes(row.status)) {
        throw invalidState(`The invoice is ${row.status}: refund or void its payment instead of deleting it.`, {
          status: row.status,
        });
      }
      const now = await this.clock.timestamp(merchantId);
      await repo.softDeleteInvoice(tx, id, now);
      const record = await this.recordOf(tx, merchantId, id);
      await this.events.emit(tx, { merchantId, name: "update_invoice", record });
      return record;
    });
  }

  /** Marks the invoice as e-mailed (sent_at) the first time a receipt or invoice e-mail goes out. */
  async markSent(merchantId: string, id: string): Promise<void> {
    await repo.markInvoice(this.db, merchantId, id, "sent_at", await this.clock.timestamp(merchantId));
  }

  /** Marks the invoice as viewed by its customer (the hosted pages). */
  async markViewed(merchantId: string, id: string): Promise<void> {
    await repo.markInvoice(this.db, merchantId, id, "viewed_at", await this.clock.timestamp(merchantId));
  }

  /** Whether the merchant has an invoice with this id (POST /charge's invoice_id). */
  async exists(ex: Executor, merchantId: string, id: string): Promise<boolean> {
    return (await this.find(ex, merchantId, id)) !== null;
  }
}

/** The invoice record of docs/contract.md §6 from its row, customer and transaction records. */
function invoiceRecord(
  row: InvoiceRow,
  customer: Invoice["customer"],
  transactions: Invoice["child_transactions"],
): Invoice {
  const settled = SETTLED_STATUSES.includes(row.status) || row.status === "DELETED";
  return {
    id: row.id,
    customer_id: row.customer_id,
    customer,
    payment_method_id: row.payment_method_id,
    child_transactions: transactions,
    status: row.status,
    total: centsToNumber(row.total_cents),
    total_paid: centsToNumber(row.total_paid_cents),
    balance_due: settled ? 0 : centsToNumber(Math.max(0, row.total_cents - row.total_paid_cents)),
    is_partial_payment_enabled: row.is_partial_payment_enabled === 1,
    is_webpayment: row.is_webpayment === 1,
    is_merchant_present: row.is_merchant_present === null ? null : row.is_merchant_present === 1,
    payment_attempt_failed: row.payment_attempt_failed === 1,
    payment_attempt_message: row.payment_attempt_message,
    meta: parseJson(row.meta, {}),
    url: row.url,
    schedule_id: row.schedule_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    invoice_date_at: row.invoice_date_at,
    paid_at: row.paid_at,
    due_at: row.due_at,
    sent_at: row.sent_at,
    viewed_at: row.viewed_at,
    deleted_at: row.deleted_at,
  };
}
