import type { Database } from "bun:sqlite";
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

export interface InvoiceRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  payment_method_id: string | null;
  status: InvoiceStatus;
  total_cents: number;
  total_paid_cents: number;
  is_partial_payment_enabled: number;
  is_webpayment: number;
  is_merchant_present: number | null;
  payment_attempt_failed: number;
  payment_attempt_message: string;
  send_receipt: number;
  email: string | null;
  meta: string;
  url: string;
  schedule_id: string | null;
  created_at: string;
  updated_at: string;
  invoice_date_at: string;
  paid_at: string | null;
  due_at: string | null;
  sent_at: string | null;
  viewed_at: string | null;
  deleted_at: string | null;
}

export type Invoice = InvoiceRecord;

/** Statuses after which nothing is due: the invoice was paid, and maybe refunded or voided since. */
export const SETTLED_STATUSES: readonly InvoiceStatus[] = ["PAID", "PARTIALLY_REFUNDED", "REFUNDED", "VOIDED"];

export interface InvoiceFilters {
  status?: string;
  customerId?: string;
  startDate?: string;
  endDate?: string;
}

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
    private readonly events: EventBus,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
    private readonly transactions: TransactionService,
  ) {
    events.on((event) => this.onEvent(event));
  }

  find(merchantId: string, id: string): InvoiceRow | null {
    return this.db
      .query<InvoiceRow, [string, string]>("SELECT * FROM invoices WHERE id = ? AND merchant_id = ?")
      .get(id, merchantId);
  }

  get(merchantId: string, id: string): InvoiceRow {
    const row = this.find(merchantId, id);
    if (!row) throw notFound("Invoice");
    return row;
  }

  /** An invoice of any merchant by id: the hosted pages, where the unguessable id is the capability. */
  locate(id: string): InvoiceRow | null {
    return this.db.query<InvoiceRow, [string]>("SELECT * FROM invoices WHERE id = ?").get(id);
  }

  /** The invoice's own (top-level) transactions: successful ones first, each in creation order. */
  transactionsOf(row: InvoiceRow): TransactionRow[] {
    return this.db
      .query<TransactionRow, [string, string]>(
        "SELECT * FROM transactions WHERE invoice_id = ? AND merchant_id = ? AND parent_id IS NULL ORDER BY success DESC, created_at, rowid",
      )
      .all(row.id, row.merchant_id);
  }

  record(row: InvoiceRow): Invoice {
    const settled = SETTLED_STATUSES.includes(row.status) || row.status === "DELETED";
    return {
      id: row.id,
      customer_id: row.customer_id,
      customer: customerRecord(this.customers.get(row.merchant_id, row.customer_id)),
      payment_method_id: row.payment_method_id,
      child_transactions: this.transactionsOf(row).map((t) => this.transactions.record(t)),
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

  recordOf(merchantId: string, id: string): Invoice {
    return this.record(this.get(merchantId, id));
  }

  list(merchantId: string, filters: InvoiceFilters, page: PageRequest, url: string): Page<Invoice> {
    const where = ["merchant_id = ?"];
    const params: (string | number)[] = [merchantId];
    if (filters.status) {
      where.push("status = ?");
      params.push(filters.status.toUpperCase());
    }
    if (filters.customerId) {
      where.push("customer_id = ?");
      params.push(filters.customerId);
    }
    if (filters.startDate) {
      where.push("created_at >= ?");
      params.push(filters.startDate.length === 10 ? `${filters.startDate} 00:00:00` : filters.startDate);
    }
    if (filters.endDate) {
      where.push("created_at <= ?");
      params.push(filters.endDate.length === 10 ? `${filters.endDate} 23:59:59` : filters.endDate);
    }
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM invoices WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<InvoiceRow, (string | number)[]>(
        `SELECT * FROM invoices WHERE ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    return paginate(
      rows.map((row) => this.record(row)),
      total,
      page,
      url,
    );
  }

  /**
   * The rules of pay()'s invoice step: the same ones the browser library runs on extraDetails
   * (packages/rules/validation.ts), minus the card and bank fields, which tokenize already checked.
   */
  validatePublic(merchantId: string, input: PublicInvoiceBody, settings: AvsSettings): FieldErrors {
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
      if (!this.customers.find(merchantId, input.customer_id!)) {
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

  /** pay()'s step 3: a DRAFT invoice for the payment method's customer. Call inside a transaction. */
  createPublic(merchantId: string, input: PublicInvoiceBody, settings: AvsSettings, publicUrl: string): InvoiceRow {
    if (input.invoice_id) return this.reusePublic(merchantId, input, settings);
    assertValid(this.validatePublic(merchantId, input, settings));
    const pm = this.paymentMethods.chargeable(merchantId, input.payment_method_id);
    const customerId = input.customer_id?.trim() || pm.customer_id;
    const email = input.email?.trim() || this.customers.get(merchantId, customerId).email;
    return this.insert(merchantId, {
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
  private reusePublic(merchantId: string, input: PublicInvoiceBody, settings: AvsSettings): InvoiceRow {
    const invoice = this.find(merchantId, input.invoice_id!);
    if (!invoice) throw new ApiError("not_found", "Invoice not found.", { param: "invoice_id" });
    if (invoice.status === "DELETED" || SETTLED_STATUSES.includes(invoice.status)) {
      throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
    }
    const errors = this.validatePublic(merchantId, input, settings);
    const total = parseTotalCents(input.total);
    const balance = invoice.total_cents - invoice.total_paid_cents;
    if (!errors.total && "cents" in total && total.cents !== balance) {
      addError(errors, "total", MESSAGES.invoiceTotalMismatch(centsToNumber(balance).toFixed(2)));
    }
    assertValid(errors);
    const pm = this.paymentMethods.chargeable(merchantId, input.payment_method_id);
    const email = input.email?.trim() || invoice.email;
    this.db
      .query("UPDATE invoices SET payment_method_id = ?, email = ?, updated_at = ? WHERE id = ?")
      .run(pm.id, email, this.clock.timestamp(merchantId), invoice.id);
    const row = this.get(merchantId, invoice.id);
    this.events.emit({ merchantId, name: "update_invoice", record: this.record(row) });
    return row;
  }

  /** POST /invoice: an invoice the merchant makes for one of its customers. Call inside a transaction. */
  createForMerchant(
    merchantId: string,
    input: InvoiceBody,
    publicUrl: string,
    requiredFields: readonly MerchantCustomField[] = [],
  ): InvoiceRow {
    const raw = input as Record<string, unknown>;
    const errors: FieldErrors = {};
    if (!this.customers.find(merchantId, input.customer_id)) addError(errors, "customer_id", MESSAGES.customerNotFound);
    validateCustomerFields({ email: input.email }, { requireNames: false, requireContact: false }, errors);
    validateTotal(raw, errors);
    checkSendReceipt(raw, errors);
    validateMeta(input.meta, errors);
    // The merchant's Advanced Customization fields marked required (api/merchants/options.ts).
    checkRequiredCustomFields(input.meta, requiredFields, errors);
    if (input.due_at !== undefined && !TIMESTAMP.test(input.due_at)) {
      addError(errors, "due_at", "The due_at must be a date (YYYY-MM-DD) or a timestamp (YYYY-MM-DD HH:MM:SS).");
    }
    assertValid(errors);
    const pm = input.payment_method_id ? this.paymentMethods.chargeable(merchantId, input.payment_method_id) : null;
    const email = input.email?.trim() || this.customers.get(merchantId, input.customer_id).email;
    return this.insert(merchantId, {
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

  private insert(
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
  ): InvoiceRow {
    const id = crypto.randomUUID();
    const now = this.clock.timestamp(merchantId);
    this.db
      .query(
        `INSERT INTO invoices (id, merchant_id, customer_id, payment_method_id, status, total_cents, is_partial_payment_enabled,
           is_webpayment, is_merchant_present, send_receipt, email, meta, url, created_at, updated_at, invoice_date_at, due_at)
         VALUES (?, ?, ?, ?, 'DRAFT', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        merchantId,
        v.customerId,
        v.paymentMethodId,
        v.totalCents,
        v.isPartialPaymentEnabled ? 1 : 0,
        v.isWebpayment ? 1 : 0,
        v.isMerchantPresent === null ? null : v.isMerchantPresent ? 1 : 0,
        v.sendReceipt ? 1 : 0,
        v.email,
        JSON.stringify(v.meta),
        v.url,
        now,
        now,
        now,
        v.dueAt,
      );
    const row = this.get(merchantId, id);
    this.events.emit({ merchantId, name: "create_invoice", record: this.record(row) });
    return row;
  }

  /**
   * Charges the payment method for the invoice's full balance. The transaction listener moves
   * the invoice to PAID or ATTEMPTED. Returns the charge and the invoice after it. Call inside a
   * transaction.
   */
  pay(
    merchantId: string,
    id: string,
    paymentMethodId: string,
    options: PayOptions,
  ): { invoice: InvoiceRow; transaction: TransactionRow } {
    const invoice = this.get(merchantId, id);
    if (invoice.status === "DELETED" || invoice.deleted_at) throw invalidState("The invoice was deleted.");
    if (SETTLED_STATUSES.includes(invoice.status)) {
      throw invalidState(`The invoice is ${invoice.status} and cannot be paid again.`, { status: invoice.status });
    }
    const balance = invoice.total_cents - invoice.total_paid_cents;
    if (balance <= 0) throw invalidState("Nothing is due on this invoice.", { status: invoice.status });
    const { row: transaction } = this.transactions.charge(merchantId, {
      paymentMethodId,
      totalCents: balance,
      preAuth: false,
      meta: parseJson(invoice.meta, {}),
      invoiceId: invoice.id,
      source: options.source,
      isMerchantPresent: options.isMerchantPresent,
      // The attempt's receipt is e-mailed right after the commit (api/receipts/service.ts); the
      // charge records it from the start, so its answer, replays and webhooks all agree.
      receiptEmailAt: receiptAddress(invoice) ? this.clock.timestamp(merchantId) : null,
    });
    return { invoice: this.get(merchantId, id), transaction };
  }

  /** Keeps invoices in step with their transactions (see the class comment). */
  private onEvent(event: SandboxEvent): void {
    if (event.name !== "create_transaction" && event.name !== "update_transaction") return;
    const record = event.record as { invoice_id?: string; parent_id?: string | null; success?: boolean };
    if (!record.invoice_id) return;
    const failedAttempt = event.name === "create_transaction" && !record.parent_id && record.success === false;
    this.sync(event.merchantId, record.invoice_id, failedAttempt ? (event.record as { id: string }).id : null);
  }

  /**
   * Recomputes status, total_paid, paid_at and the attempt fields from the invoice's
   * transactions, and emits update_invoice when anything changed. `failedChargeId` is a declined
   * charge that was just made for it.
   */
  sync(merchantId: string, invoiceId: string, failedChargeId: string | null = null): void {
    const row = this.find(merchantId, invoiceId);
    if (!row || row.status === "DELETED") return;
    const next: Partial<InvoiceRow> = {};
    let paidCents = 0;
    let refundedCents = 0;
    let voidedCents = 0;
    let lastPaymentMethod: string | null = null;
    for (const t of this.transactionsOf(row)) {
      if (t.success !== 1) continue;
      if (t.is_voided === 1) {
        voidedCents += t.total_cents;
        continue;
      }
      const gross = t.type === "charge" ? t.total_cents : t.type === "pre_auth" ? this.capturedCents(t.id) : 0;
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
    if (status === "PAID" && !row.paid_at) next.paid_at = this.clock.timestamp(merchantId);
    if (lastPaymentMethod) next.payment_method_id = lastPaymentMethod;
    if (paidCents > 0 || voidedCents > 0) {
      next.payment_attempt_failed = 0;
      next.payment_attempt_message = "";
    }
    if (failedChargeId) {
      const failed = this.transactions.find(merchantId, failedChargeId);
      if (failed && !SETTLED_STATUSES.includes(status)) {
        next.status = "ATTEMPTED";
        next.payment_attempt_failed = 1;
        next.payment_attempt_message = failed.message ?? "Declined.";
        next.payment_method_id = failed.payment_method_id;
      }
    }
    const changed = (Object.keys(next) as (keyof InvoiceRow)[]).filter((key) => next[key] !== row[key]);
    if (changed.length === 0) return;
    next.updated_at = this.clock.timestamp(merchantId);
    const columns = [...changed, "updated_at" as const];
    this.db
      .query(`UPDATE invoices SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`)
      .run(...(columns.map((c) => next[c] ?? null) as (string | number | null)[]), row.id);
    this.events.emit({ merchantId, name: "update_invoice", record: this.recordOf(merchantId, row.id) });
  }

  private capturedCents(preAuthId: string): number {
    return (
      this.db
        .query<{ cents: number | null }, [string]>(
          "SELECT SUM(total_cents) AS cents FROM transactions WHERE parent_id = ? AND type = 'capture' AND success = 1",
        )
        .get(preAuthId)!.cents ?? 0
    );
  }

  /**
   * Soft delete of an invoice nothing was paid on: status DELETED, deleted_at set, no longer
   * payable; it stays readable. Emits update_invoice. Paid invoices are refunded or voided instead.
   */
  delete(merchantId: string, id: string): Invoice {
    return this.db
      .transaction(() => {
        const row = this.get(merchantId, id);
        if (row.status === "DELETED") return this.record(row);
        if (row.total_paid_cents > 0 || SETTLED_STATUSES.includes(row.status)) {
          throw invalidState(`The invoice is ${row.status}: refund or void its payment instead of deleting it.`, {
            status: row.status,
          });
        }
        const now = this.clock.timestamp(merchantId);
        this.db
          .query("UPDATE invoices SET status = 'DELETED', deleted_at = ?, updated_at = ? WHERE id = ?")
          .run(now, now, id);
        const record = this.recordOf(merchantId, id);
        this.events.emit({ merchantId, name: "update_invoice", record });
        return record;
      })
      .immediate();
  }

  /** Marks the invoice as e-mailed (sent_at) the first time a receipt or invoice e-mail goes out. */
  markSent(merchantId: string, id: string): void {
    const now = this.clock.timestamp(merchantId);
    this.db
      .query("UPDATE invoices SET sent_at = COALESCE(sent_at, ?) WHERE id = ? AND merchant_id = ?")
      .run(now, id, merchantId);
  }

  /** Marks the invoice as viewed by its customer (the hosted pages). */
  markViewed(merchantId: string, id: string): void {
    const now = this.clock.timestamp(merchantId);
    this.db
      .query("UPDATE invoices SET viewed_at = COALESCE(viewed_at, ?) WHERE id = ? AND merchant_id = ?")
      .run(now, id, merchantId);
  }
}
