import type { Database } from "bun:sqlite";
import type { SandboxClock } from "../../lib/clock";
import type { EventBus } from "../../lib/events";
import { parseJson } from "../../lib/json";
import { centsToNumber } from "../../lib/money";
import { paginate, type Page, type PageRequest } from "../../lib/pagination";
import { authorize } from "../../processor/gateway";
import { customerRecord, type Customer, type CustomerService } from "../customers/service";
import { invalidState, notFound } from "../errors";
import type { PaymentMethodService } from "../payment-methods/service";

export type TransactionType = "charge" | "pre_auth" | "capture" | "void" | "refund";

export interface TransactionRow {
  id: string;
  merchant_id: string;
  parent_id: string | null;
  invoice_id: string | null;
  customer_id: string;
  payment_method_id: string;
  method: "card" | "bank";
  type: TransactionType;
  success: number;
  total_cents: number;
  last_four: string;
  auth_id: string | null;
  issuer_auth_code: string | null;
  message: string | null;
  decline_code: string | null;
  meta: string;
  is_manual: number;
  is_merchant_present: number;
  receipt_email_at: string | null;
  receipt_sms_at: string | null;
  reference_id: string;
  source: string | null;
  pre_auth: number;
  is_captured: number;
  is_voided: number;
  total_refunded_cents: number;
  batch_id: string | null;
  settled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The transaction record of DESIGN §6. */
export interface Transaction {
  id: string;
  parent_id: string | null;
  invoice_id: string;
  customer_id: string;
  payment_method_id: string;
  payment_method: {
    id: string;
    customer: Customer;
    method: string;
    card_type: string | null;
    card_last_four: string | null;
    card_exp: string | null;
    bank_name: string | null;
    bank_type: string | null;
    person_name: string;
  };
  method: "card" | "bank";
  type: TransactionType;
  success: boolean;
  total: number;
  last_four: string;
  auth_id: string | null;
  issuer_auth_code: string | null;
  message: string | null;
  decline_code: string | null;
  meta: Record<string, unknown>;
  is_manual: boolean;
  is_merchant_present: boolean;
  receipt_email_at: string | null;
  receipt_sms_at: string | null;
  reference_id: string;
  source: string | null;
  created_at: string;
  updated_at: string;
  pre_auth: boolean;
  is_captured: boolean;
  total_refunded: number;
  is_refundable: boolean;
  is_voidable: boolean;
  is_voided: boolean;
  batch_id: string | null;
  settled_at: string | null;
  child_transactions: Transaction[];
}

export interface ChargeInput {
  paymentMethodId: string;
  totalCents: number;
  preAuth: boolean;
  meta: Record<string, unknown>;
  invoiceId?: string | null;
  source?: string | null;
  isMerchantPresent?: boolean;
}

export interface TransactionFilters {
  startDate?: string;
  endDate?: string;
  type?: string;
  success?: boolean;
  method?: string;
  customerId?: string;
  keywords?: string;
}

/** Money that can still be refunded from a settled charge or capture. */
export function refundableCents(row: TransactionRow): number {
  return row.total_cents - row.total_refunded_cents;
}

export class TransactionService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
  ) {}

  find(merchantId: string, id: string): TransactionRow | null {
    return this.db
      .query<TransactionRow, [string, string]>("SELECT * FROM transactions WHERE id = ? AND merchant_id = ?")
      .get(id, merchantId);
  }

  get(merchantId: string, id: string): TransactionRow {
    const row = this.find(merchantId, id);
    if (!row) throw notFound("Transaction");
    return row;
  }

  children(parentId: string): TransactionRow[] {
    return this.db
      .query<TransactionRow, [string]>("SELECT * FROM transactions WHERE parent_id = ? ORDER BY created_at, rowid")
      .all(parentId);
  }

  /** The API record of a row, with its payment method, customer and children. */
  record(row: TransactionRow): Transaction {
    const pm = this.paymentMethods.get(row.merchant_id, row.payment_method_id);
    const customer = customerRecord(this.customers.get(row.merchant_id, row.customer_id));
    const success = row.success === 1;
    const settled = row.settled_at !== null;
    const moneyIn = row.type === "charge" || row.type === "capture";
    return {
      id: row.id,
      parent_id: row.parent_id,
      invoice_id: row.invoice_id ?? "",
      customer_id: row.customer_id,
      payment_method_id: row.payment_method_id,
      payment_method: {
        id: pm.id,
        customer,
        method: pm.method,
        card_type: pm.card_type,
        card_last_four: pm.card_last_four,
        card_exp: pm.card_exp,
        bank_name: pm.bank_name,
        bank_type: pm.bank_type,
        person_name: pm.person_name,
      },
      method: row.method,
      type: row.type,
      success,
      total: centsToNumber(row.total_cents),
      last_four: row.last_four,
      auth_id: row.auth_id,
      issuer_auth_code: row.issuer_auth_code,
      message: row.message,
      decline_code: row.decline_code,
      meta: parseJson(row.meta, {}),
      is_manual: row.is_manual === 1,
      is_merchant_present: row.is_merchant_present === 1,
      receipt_email_at: row.receipt_email_at,
      receipt_sms_at: row.receipt_sms_at,
      reference_id: row.reference_id,
      source: row.source,
      created_at: row.created_at,
      updated_at: row.updated_at,
      pre_auth: row.pre_auth === 1,
      is_captured: row.is_captured === 1,
      total_refunded: centsToNumber(row.total_refunded_cents),
      is_refundable: success && moneyIn && settled && row.is_voided === 0 && refundableCents(row) > 0,
      is_voidable:
        success &&
        (moneyIn || row.type === "pre_auth") &&
        !settled &&
        row.is_voided === 0 &&
        row.is_captured === 0 &&
        row.total_refunded_cents === 0,
      is_voided: row.is_voided === 1,
      batch_id: row.batch_id,
      settled_at: row.settled_at,
      child_transactions: this.children(row.id).map((child) => this.record(child)),
    };
  }

  recordOf(merchantId: string, id: string): Transaction {
    return this.record(this.get(merchantId, id));
  }

  /**
   * Authorizes a payment method with the simulated processor and stores the transaction,
   * approved or declined. Emits create_transaction. Call inside a transaction.
   */
  charge(merchantId: string, input: ChargeInput): TransactionRow {
    const pm = this.paymentMethods.chargeable(merchantId, input.paymentMethodId);
    if (pm.method === "card" && pm.card_exp) {
      const now = this.clock.now(merchantId);
      const month = Number(pm.card_exp.slice(0, 2));
      const year = 2000 + Number(pm.card_exp.slice(2));
      if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
        throw invalidState("The card on this payment method has expired.");
      }
    }
    const auth = authorize(pm.outcome, pm.method);
    const id = crypto.randomUUID();
    const now = this.clock.timestamp(merchantId);
    this.db
      .query(
        `INSERT INTO transactions (id, merchant_id, invoice_id, customer_id, payment_method_id, method, type, success,
           total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_merchant_present,
           reference_id, source, pre_auth, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        merchantId,
        input.invoiceId ?? null,
        pm.customer_id,
        pm.id,
        pm.method,
        input.preAuth ? "pre_auth" : "charge",
        auth.success ? 1 : 0,
        input.totalCents,
        (pm.method === "card" ? pm.card_last_four : pm.bank_last_four) ?? "",
        auth.authId,
        auth.issuerAuthCode,
        auth.message,
        auth.declineCode,
        JSON.stringify(input.meta),
        input.isMerchantPresent ? 1 : 0,
        auth.authId ?? "",
        input.source ?? null,
        input.preAuth ? 1 : 0,
        now,
        now,
      );
    const row = this.get(merchantId, id);
    this.events.emit({ merchantId, name: "create_transaction", record: this.record(row) });
    return row;
  }

  list(merchantId: string, filters: TransactionFilters, page: PageRequest, url: string): Page<Transaction> {
    // Children (captures, voids, refunds) are listed under their parent, not on their own.
    const where = ["t.merchant_id = ?", "t.parent_id IS NULL"];
    const params: (string | number)[] = [merchantId];
    if (filters.startDate) {
      where.push("t.created_at >= ?");
      params.push(filters.startDate.length === 10 ? `${filters.startDate} 00:00:00` : filters.startDate);
    }
    if (filters.endDate) {
      where.push("t.created_at <= ?");
      params.push(filters.endDate.length === 10 ? `${filters.endDate} 23:59:59` : filters.endDate);
    }
    if (filters.type) {
      where.push("t.type = ?");
      params.push(filters.type);
    }
    if (filters.success !== undefined) {
      where.push("t.success = ?");
      params.push(filters.success ? 1 : 0);
    }
    if (filters.method) {
      where.push("t.method = ?");
      params.push(filters.method);
    }
    if (filters.customerId) {
      where.push("t.customer_id = ?");
      params.push(filters.customerId);
    }
    let from = "transactions t";
    if (filters.keywords) {
      from += " JOIN customers c ON c.id = t.customer_id";
      where.push(
        "(t.id = ? OR t.last_four = ? OR t.invoice_id = ? OR (c.firstname || ' ' || c.lastname || ' ' || c.email || ' ' || c.company) LIKE ? ESCAPE '\\')",
      );
      const k = filters.keywords.trim();
      params.push(k, k, k, `%${k.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, (string | number)[]>(`SELECT COUNT(*) AS n FROM ${from} WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<TransactionRow, (string | number)[]>(
        `SELECT t.* FROM ${from} WHERE ${clause} ORDER BY t.created_at DESC, t.rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    return paginate(
      rows.map((row) => this.record(row)),
      total,
      page,
      url,
    );
  }
}
