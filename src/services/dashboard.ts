/**
 * What the dashboard reads: through the same service queries the API lists with (transactions,
 * customers, invoices, webhooks, the outboxes, deposits), and the overview's totals and the live
 * refresh's change mark from src/storage/repositories/activity.ts.
 */
import type { Database } from "../storage/database";
import { merchantActivity, transactionTotals, type TransactionTotals } from "../storage/repositories/activity";
import { outsidePaymentsOf, type OutsidePaymentRow } from "../storage/repositories/invoice-payments";
import type { Mailer } from "./mail/mailer";
import type { DepositService } from "./deposits";
import type { AdjustmentRow, AdjustmentService } from "./adjustments";
import type { DepositRow } from "./settlement";
import { pageRequest, type Listing, type PageRequest } from "../domain/pagination";
import type { CustomerService } from "./customers";
import type { InvoiceService } from "./invoices";
import type { MerchantService } from "./merchants";
import type { PaymentMethodService } from "./payment-methods";
import type { TransactionService } from "./transactions";
import type { WebhookService } from "./webhooks";
import type { Customer } from "./customers";
import type { PaymentMethod } from "./payment-methods";
import type { Transaction, TransactionFilters } from "./transactions";
import type { InvoiceFilters } from "./invoices";
import type { DeliveryStatus } from "../domain/schemas/webhooks";
import { ApiError } from "../domain/errors";
import type { MerchantRow } from "./merchants";

export interface AttemptView {
  attempt: number;
  started_at: string;
  success: boolean;
  status_code: number | null;
  latency_ms: number | null;
  response_snippet: string | null;
  request_headers: Record<string, string>;
  response_headers: Record<string, string> | null;
  error: string | null;
}

export interface InvoiceView {
  id: string;
  status: string;
  total: number;
  total_paid: number;
  balance_due: number;
  customer: { id: string; firstname: string; lastname: string; email: string };
  child_transactions: {
    id: string;
    type: string;
    success: boolean;
    total: number;
    message: string | null;
    created_at: string;
  }[];
  meta: Record<string, unknown>;
  url: string;
  payment_attempt_message: string;
  /** The invoice schedule whose occurrence made it. */
  schedule_id: string | null;
  created_at: string;
  paid_at: string | null;
}
export interface EmailView {
  id: string;
  kind: string;
  from_address: string;
  to_address: string;
  /** JSON array of the copied addresses (the merchant's receipt_cc). */
  cc_addresses?: string;
  reply_to?: string;
  subject: string;
  invoice_id: string | null;
  transaction_id: string | null;
  relay_status: string;
  relay_error: string | null;
  created_at: string;
}
export interface SmsView {
  id: string;
  to_phone: string;
  body: string;
  transaction_id: string | null;
  created_at: string;
}
export interface WebhookView {
  id: string;
  target_url: string;
  event: string;
  meta: { webhook_retry_count: number | null; webhook_retry_frequency: number | null };
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
}
export interface DeliveryView {
  id: string;
  webhook_id: string;
  target_url: string;
  event: string;
  record_id: string;
  status: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  redelivery_of: string | null;
  payload: unknown;
  created_at: string;
  attempt_log: AttemptView[];
}
/** A settlement batch as the dashboard lists it: the stored row, without what only the storage needs. */
export type DepositView = Omit<DepositRow, "merchant_id" | "created_at" | "updated_at">;

export const DASHBOARD_PER_PAGE = 50;

/**
 * One reader per dashboard page or panel, over the same service queries the API answers with: a
 * plural noun (`transactions`, `customers`, `invoices`, `emails`, `sms`, `deposits`, `deliveries`)
 * is a page (`{ rows, total }`, 50 a page), a singular one a record or undefined; `merchant` is
 * the one the picker names (else the default), `changeMark` the live refresh's change number.
 */
export class DashboardService {
  constructor(
    private readonly db: Database,
    private readonly services: {
      merchants: MerchantService;
      customers: CustomerService;
      paymentMethods: PaymentMethodService;
      transactions: TransactionService;
      invoices: InvoiceService;
      webhooks: WebhookService;
      deposits: DepositService;
      adjustments: AdjustmentService;
    },
    private readonly mailer: Mailer,
  ) {}

  merchants(): Promise<MerchantRow[]> {
    return this.services.merchants.list();
  }

  /** The merchant picked (by id, from the picker's cookie), else the default merchant. */
  async merchant(pickedId: string | undefined): Promise<MerchantRow> {
    return (pickedId && (await this.services.merchants.find(pickedId))) || this.services.merchants.getDefault();
  }

  /** Top-level transactions, newest first: GET /transaction's list, with the same filters. */
  transactions(merchantId: string, filters: TransactionFilters, page: PageRequest): Promise<Listing<Transaction>> {
    return this.services.transactions.list(merchantId, filters, page);
  }

  /** The overview's totals: top-level transactions, approved volume, declines. */
  transactionTotals(merchantId: string): Promise<TransactionTotals> {
    return transactionTotals(this.db, merchantId);
  }

  transaction(merchantId: string, id: string): Promise<Transaction | undefined> {
    return this.services.transactions.find(merchantId, id);
  }

  customers(merchantId: string, page: PageRequest, keywords?: string): Promise<Listing<Customer>> {
    return this.services.customers.list(merchantId, { keywords: keywords || undefined }, page);
  }

  async customer(
    merchantId: string,
    id: string,
  ): Promise<{ customer: Customer; paymentMethods: PaymentMethod[] } | undefined> {
    const customer = await this.services.customers.find(merchantId, id);
    if (!customer) return undefined;
    return { customer, paymentMethods: await this.services.paymentMethods.listForCustomer(merchantId, id) };
  }

  /** E-mails, newest first (the outbox's list, as GET /_sandbox/emails reads it); `to` matches part of the address. */
  emails(
    merchantId: string,
    page: PageRequest,
    to?: string,
    extra: { invoiceId?: string; transactionId?: string } = {},
  ): Promise<Listing<EmailView>> {
    return this.mailer.listEmails(
      merchantId,
      { toContains: to || undefined, invoiceId: extra.invoiceId, transactionId: extra.transactionId },
      page,
    );
  }

  /** One e-mail of the merchant with its HTML part, or undefined. */
  email(merchantId: string, id: string): Promise<(EmailView & { html: string }) | undefined> {
    return this.mailer.findEmail(merchantId, id);
  }

  /** Text messages, newest first; only those to `to` (as GET /_sandbox/sms?to= matches it) when given. */
  sms(merchantId: string, page: PageRequest, to?: string): Promise<Listing<SmsView>> {
    return this.mailer.listTexts(merchantId, to, page);
  }

  /** Every settlement batch, pending deposits included, newest first. */
  deposits(merchantId: string, page: PageRequest): Promise<Listing<DepositView>> {
    return this.services.deposits.listWithPending(merchantId, page);
  }

  /** The newest deposit adjustments (ACH returns and fees, disputes), newest first. */
  adjustments(merchantId: string, limit = DASHBOARD_PER_PAGE): Promise<AdjustmentRow[]> {
    return this.services.adjustments.recent(merchantId, limit);
  }

  /** The adjustments concerning one transaction, oldest first. */
  adjustmentsOf(merchantId: string, transactionId: string): Promise<AdjustmentRow[]> {
    return this.services.adjustments.ofTransaction(merchantId, transactionId);
  }

  invoices(merchantId: string, page: PageRequest, filters: InvoiceFilters = {}): Promise<Listing<InvoiceView>> {
    return this.services.invoices.list(merchantId, filters, page);
  }

  invoice(merchantId: string, id: string): Promise<InvoiceView | undefined> {
    return this.services.invoices.find(merchantId, id);
  }

  /** The invoice's cash and check payments (POST /invoice/{id}/pay/{method}), oldest first. */
  outsidePayments(merchantId: string, invoiceId: string): Promise<OutsidePaymentRow[]> {
    return outsidePaymentsOf(this.db, merchantId, invoiceId);
  }

  /** Active (not deleted) webhooks, disabled ones included, newest first (the first 200). */
  async webhooks(merchantId: string): Promise<WebhookView[]> {
    return (await this.services.webhooks.list(merchantId, pageRequest({ page: 1, per_page: 200 }))).rows;
  }

  /** Deliveries, newest first, filtered like GET /_sandbox/webhook-deliveries. */
  deliveries(
    merchantId: string,
    page: PageRequest,
    filters: { status?: DeliveryStatus; event?: string; webhookId?: string; recordId?: string } = {},
  ): Promise<Listing<DeliveryView>> {
    return this.services.webhooks.listDeliveries(merchantId, filters, page);
  }

  /** One delivery of the merchant with every attempt, or undefined. */
  async delivery(merchantId: string, id: string): Promise<DeliveryView | undefined> {
    try {
      return await this.services.webhooks.getDelivery(merchantId, id);
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found") return undefined;
      throw error;
    }
  }

  redeliver(merchantId: string, deliveryId: string): Promise<DeliveryView> {
    return this.services.webhooks.redeliver(merchantId, deliveryId);
  }

  /**
   * A number that changes when the merchant's outboxes or webhook deliveries change (rows no
   * record event announces), read from the database so writes by any process count: the live
   * refresh compares it with the page's.
   */
  async changeMark(merchantId: string): Promise<number> {
    const activity = await merchantActivity(this.db, merchantId);
    let hash = 0;
    for (const char of Object.values(activity).join(":")) hash = (hash * 31 + char.charCodeAt(0)) % 1_000_000_000_007;
    return hash;
  }
}
