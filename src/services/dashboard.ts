/**
 * What the dashboard reads: through the other modules' services where they offer it, and by
 * read-only SQL where it filters differently (transaction status, batch) or where a module has no
 * list for it (the e-mail and SMS outboxes, every deposit including pending ones).
 */
import type { Database } from "bun:sqlite";
import { pageRequest, paginate, type Page } from "../domain/pagination";
import type { Services } from ".";
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
export interface DepositView {
  id: string;
  batch_id: string;
  method: string;
  settled_at: string;
  deposit_at: string;
  deposited_at: string | null;
  transaction_count: number;
  gross_cents: number;
  refunds_cents: number;
  fees_cents: number;
  net_cents: number;
}

export const DASHBOARD_PER_PAGE = 50;

export class DashboardService {
  constructor(
    private readonly db: Database,
    private readonly services: Services,
  ) {}

  merchants(): Promise<MerchantRow[]> {
    return this.services.merchants.list();
  }

  /** The merchant picked (by id, from the picker's cookie), else the default merchant. */
  async merchant(pickedId: string | undefined): Promise<MerchantRow> {
    return (pickedId && (await this.services.merchants.get(pickedId))) || this.services.merchants.getDefault();
  }

  /** Top-level transactions, newest first: GET /transaction's list, with the same filters. */
  transactions(merchantId: string, filters: TransactionFilters, pageNumber: number): Promise<Page<Transaction>> {
    return this.services.transactions.list(
      merchantId,
      filters,
      pageRequest({ page: pageNumber, per_page: DASHBOARD_PER_PAGE }),
      "http://localhost/dashboard/transactions",
    );
  }

  transaction(merchantId: string, id: string): Promise<Transaction | null> {
    return this.services.transactions.findRecord(merchantId, id);
  }

  customers(merchantId: string, page: number, keywords?: string): Promise<Page<Customer>> {
    return this.services.customers.list(
      merchantId,
      pageRequest({ page, per_page: DASHBOARD_PER_PAGE }),
      "http://localhost/dashboard/customers",
      keywords || undefined,
    );
  }

  async customer(
    merchantId: string,
    id: string,
  ): Promise<{ customer: Customer; paymentMethods: PaymentMethod[] } | null> {
    const customer = await this.services.customers.findRecord(merchantId, id);
    if (!customer) return null;
    return { customer, paymentMethods: await this.services.paymentMethods.listForCustomer(merchantId, id) };
  }

  /** One page of a table's rows (the outboxes and deposits, which the dashboard reads by SQL). */
  private paged<T>(
    table: string,
    where: string[],
    params: (string | number)[],
    order: string,
    pageNumber: number,
  ): Page<T> {
    const page = pageRequest({ page: pageNumber, per_page: DASHBOARD_PER_PAGE });
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<T, (string | number)[]>(`SELECT * FROM ${table} WHERE ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`)
      .all(...params, page.perPage, page.offset);
    return paginate(rows, total, page, "http://localhost/dashboard");
  }

  emails(
    merchantId: string,
    pageNumber: number,
    to?: string,
    extra: { invoiceId?: string; transactionId?: string } = {},
  ): Page<EmailView> {
    const where = ["merchant_id = ?"];
    const params: string[] = [merchantId];
    if (to) {
      where.push("to_address LIKE ? ESCAPE '\\'");
      params.push(`%${to.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    // A transaction's e-mails include its invoice's receipt (pay() sends it about the invoice).
    const about: string[] = [];
    if (extra.invoiceId) {
      about.push("invoice_id = ?");
      params.push(extra.invoiceId);
    }
    if (extra.transactionId) {
      about.push("transaction_id = ?");
      params.push(extra.transactionId);
    }
    if (about.length) where.push(`(${about.join(" OR ")})`);
    return this.paged<EmailView>("emails", where, params, "created_at DESC, rowid DESC", pageNumber);
  }

  /** One e-mail of the merchant with its HTML part, or null. */
  email(merchantId: string, id: string): (EmailView & { html: string }) | null {
    return this.db
      .query<EmailView & { html: string }, [string, string]>("SELECT * FROM emails WHERE id = ? AND merchant_id = ?")
      .get(id, merchantId);
  }

  /** Text messages, newest first; only those to `to` (as GET /_sandbox/sms?to= matches it) when given. */
  sms(merchantId: string, pageNumber: number, to?: string): Page<SmsView> {
    const where = ["merchant_id = ?"];
    const params: string[] = [merchantId];
    if (to) {
      where.push("lower(to_phone) = lower(?)");
      params.push(to.trim());
    }
    return this.paged<SmsView>("sms", where, params, "created_at DESC, rowid DESC", pageNumber);
  }

  /** Every settlement batch, pending deposits included, newest first. */
  deposits(merchantId: string, pageNumber: number): Page<DepositView> {
    return this.paged<DepositView>(
      "deposits",
      ["merchant_id = ?"],
      [merchantId],
      "deposit_at DESC, rowid DESC",
      pageNumber,
    );
  }

  invoices(merchantId: string, pageNumber: number, filters: InvoiceFilters = {}): Promise<Page<InvoiceView>> {
    const page = pageRequest({ page: pageNumber, per_page: DASHBOARD_PER_PAGE });
    return this.services.invoices.list(merchantId, filters, page, "http://localhost/dashboard/invoices");
  }

  invoice(merchantId: string, id: string): Promise<InvoiceView | null> {
    return this.services.invoices.findRecord(merchantId, id);
  }

  /** Active (not deleted) webhooks, disabled ones included, newest first. */
  webhooks(merchantId: string): WebhookView[] {
    return this.services.webhooks.list(
      merchantId,
      pageRequest({ page: 1, per_page: 200 }),
      "http://localhost/dashboard",
    ).data;
  }

  /** Deliveries, newest first, filtered like GET /_sandbox/webhook-deliveries. */
  deliveries(
    merchantId: string,
    pageNumber: number,
    filters: { status?: DeliveryStatus; event?: string; webhookId?: string; recordId?: string } = {},
  ): Page<DeliveryView> {
    return this.services.webhooks.deliveries(
      merchantId,
      filters,
      pageRequest({ page: pageNumber, per_page: DASHBOARD_PER_PAGE }),
      "http://localhost/dashboard/webhooks",
    );
  }

  /** One delivery of the merchant with every attempt, or null. */
  delivery(merchantId: string, id: string): DeliveryView | null {
    try {
      return this.services.webhooks.delivery(merchantId, id);
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found") return null;
      throw error;
    }
  }

  redeliver(merchantId: string, deliveryId: string): DeliveryView {
    return this.services.webhooks.redeliver(merchantId, deliveryId);
  }

  /**
   * A number that grows with every row written through this connection (the whole app shares
   * one): the live refresh notices e-mails, deliveries and other rows no event announces.
   */
  changeCounter(): number {
    return this.db.query<{ n: number }, []>("SELECT total_changes() AS n").get()!.n;
  }
}
