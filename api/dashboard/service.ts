/**
 * What the dashboard reads: through the other modules' services where they offer it, and by
 * read-only SQL where it filters differently (transaction status, batch) or where a module has no
 * list for it (the e-mail and SMS outboxes, every deposit including pending ones).
 */
import type { Database } from "bun:sqlite";
import { pageRequest, paginate, type Page } from "../../lib/pagination";
import type {
  DeliveryView,
  DepositView,
  EmailView,
  InvoiceView,
  SmsView,
  WebhookView,
} from "../../web/dashboard/pages/records";
import type { Services } from "../deps";
import type { Customer } from "../customers/service";
import type { PaymentMethod } from "../payment-methods/service";
import type { Transaction, TransactionRow } from "../transactions/service";
import type { MerchantRow } from "../merchants/service";

export const DASHBOARD_PER_PAGE = 50;

/** Transaction statuses the dashboard filters by. */
export const TRANSACTION_STATUSES = {
  approved: "t.success = 1 AND t.is_voided = 0",
  declined: "t.success = 0",
  voided: "t.is_voided = 1",
  refunded: "t.total_refunded_cents > 0",
  settled: "t.settled_at IS NOT NULL",
  unsettled: "t.success = 1 AND t.is_voided = 0 AND t.settled_at IS NULL",
} as const;
export type TransactionStatus = keyof typeof TRANSACTION_STATUSES;

export interface TransactionListFilters {
  status?: string;
  method?: string;
  /** YYYY-MM-DD, inclusive. */
  from?: string;
  to?: string;
  customerId?: string;
  /** A settlement batch: the transactions a deposit pays out. */
  batch?: string;
  /** Id, last four, or part of the customer's name, e-mail or company. */
  q?: string;
  page?: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class DashboardService {
  constructor(
    private readonly db: Database,
    private readonly services: Services,
  ) {}

  merchants(): MerchantRow[] {
    return this.services.merchants.list();
  }

  /** The merchant picked (by id, from the picker's cookie), else the default merchant. */
  merchant(pickedId: string | undefined): MerchantRow {
    return (pickedId && this.services.merchants.get(pickedId)) || this.services.merchants.getDefault();
  }

  /** Top-level transactions (children are shown on their parent's page), newest first. */
  transactions(merchantId: string, filters: TransactionListFilters): Page<Transaction> {
    const where = ["t.merchant_id = ?", "t.parent_id IS NULL"];
    const params: (string | number)[] = [merchantId];
    if (filters.status && filters.status in TRANSACTION_STATUSES) {
      where.push(TRANSACTION_STATUSES[filters.status as TransactionStatus]);
    }
    if (filters.method === "card" || filters.method === "bank") {
      where.push("t.method = ?");
      params.push(filters.method);
    }
    if (filters.from && DATE.test(filters.from)) {
      where.push("t.created_at >= ?");
      params.push(`${filters.from} 00:00:00`);
    }
    if (filters.to && DATE.test(filters.to)) {
      where.push("t.created_at <= ?");
      params.push(`${filters.to} 23:59:59`);
    }
    if (filters.customerId) {
      where.push("t.customer_id = ?");
      params.push(filters.customerId);
    }
    if (filters.batch) {
      // A refund settles in its own batch: its parent is listed under that batch too.
      where.push(
        "(t.batch_id = ? OR EXISTS (SELECT 1 FROM transactions c WHERE c.parent_id = t.id AND c.batch_id = ?))",
      );
      params.push(filters.batch, filters.batch);
    }
    const q = filters.q?.trim();
    if (q) {
      where.push(
        "(t.id = ? OR t.last_four = ? OR t.invoice_id = ? OR EXISTS (SELECT 1 FROM customers c WHERE c.id = t.customer_id AND (c.firstname || ' ' || c.lastname || ' ' || c.email || ' ' || c.company) LIKE ? ESCAPE '\\'))",
      );
      params.push(q, q, q, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    const page = pageRequest({ page: filters.page, per_page: DASHBOARD_PER_PAGE });
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM transactions t WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<TransactionRow, (string | number)[]>(
        `SELECT t.* FROM transactions t WHERE ${clause} ORDER BY t.created_at DESC, t.rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    const lastPage = Math.max(1, Math.ceil(total / page.perPage));
    return {
      current_page: page.page,
      per_page: page.perPage,
      total,
      last_page: lastPage,
      from: rows.length ? page.offset + 1 : null,
      to: rows.length ? page.offset + rows.length : null,
      data: rows.map((row) => this.services.transactions.record(row)),
      next_page_url: null,
      prev_page_url: null,
    };
  }

  transaction(merchantId: string, id: string): Transaction | null {
    const row = this.services.transactions.find(merchantId, id);
    return row ? this.services.transactions.record(row) : null;
  }

  customers(merchantId: string, page: number, keywords?: string): Page<Customer> {
    return this.services.customers.list(
      merchantId,
      pageRequest({ page, per_page: DASHBOARD_PER_PAGE }),
      "http://localhost/dashboard/customers",
      keywords || undefined,
    );
  }

  customer(merchantId: string, id: string): { customer: Customer; paymentMethods: PaymentMethod[] } | null {
    if (!this.services.customers.find(merchantId, id)) return null;
    return {
      customer: this.services.customers.record(merchantId, id),
      paymentMethods: this.services.paymentMethods.listForCustomer(merchantId, id),
    };
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

  sms(merchantId: string, pageNumber: number): Page<SmsView> {
    return this.paged<SmsView>("sms", ["merchant_id = ?"], [merchantId], "created_at DESC, rowid DESC", pageNumber);
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

  invoices(merchantId: string, pageNumber: number, status?: string): Page<InvoiceView> {
    const page = pageRequest({ page: pageNumber, per_page: DASHBOARD_PER_PAGE });
    return this.services.invoices.list(
      merchantId,
      { status: status || undefined },
      page,
      "http://localhost/dashboard/invoices",
    );
  }

  invoice(merchantId: string, id: string): InvoiceView | null {
    const row = this.services.invoices.find(merchantId, id);
    return row ? this.services.invoices.record(row) : null;
  }

  webhooks(merchantId: string): WebhookView[] {
    return this.services.webhooks.list(
      merchantId,
      pageRequest({ page: 1, per_page: 200 }),
      "http://localhost/dashboard",
    ).data;
  }

  /** Deliveries, newest first; of one record (a transaction's page) when recordId is given. */
  deliveries(
    merchantId: string,
    pageNumber: number,
    filters: { status?: string; recordId?: string } = {},
  ): Page<DeliveryView> {
    const status = ["pending", "delivered", "failed", "cancelled"].find((s) => s === filters.status);
    return this.services.webhooks.deliveries(
      merchantId,
      { status: status as "pending" | undefined, recordId: filters.recordId },
      pageRequest({ page: pageNumber, per_page: DASHBOARD_PER_PAGE }),
      "http://localhost/dashboard/webhooks",
    );
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
