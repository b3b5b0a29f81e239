import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import { parseJson } from "../lib/json";
import { centsToNumber } from "../domain/money";
import { paginate, type Page, type PageRequest } from "../domain/pagination";
import { authorize } from "../domain/gateway";
import { customerRecord, type CustomerRow, type CustomerService } from "./customers";
import type { TransactionRecord } from "../domain/schemas/records";
import { invalidState, notFound, ValidationFailed } from "../domain/errors";
import type { PaymentMethodRow, PaymentMethodService } from "./payment-methods";

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
  /** A pre_auth's captured amount; 0 until captured. */
  captured_cents: number;
  /** The processing fee taken when the row settled (src/domain/fees.ts); null until then. */
  fee_cents: number | null;
  batch_id: string | null;
  settled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The transaction record of docs/contract.md §6: the type of its schema (children one level deep). */
export type Transaction = typeof TransactionRecord.static;

export interface ChargeInput {
  paymentMethodId: string;
  totalCents: number;
  preAuth: boolean;
  meta: Record<string, unknown>;
  invoiceId?: string | null;
  source?: string | null;
  isMerchantPresent?: boolean;
  /** When a receipt e-mail goes out with this payment (pay() with send_receipt). */
  receiptEmailAt?: string | null;
}

export interface TransactionFilters {
  startDate?: string;
  endDate?: string;
  type?: string;
  success?: boolean;
  method?: string;
  customerId?: string;
  keywords?: string;
  /** Transactions with a row in this settlement batch (their own, or a capture's or refund's). */
  batchId?: string;
  /** Where the money stands (the dashboard's status filter): see TRANSACTION_STATES. */
  state?: TransactionState;
}

/** The states a top-level transaction can be filtered by, as SQL on the row `t`. */
export const TRANSACTION_STATES = {
  approved: "t.success = 1 AND t.is_voided = 0",
  declined: "t.success = 0",
  authorized: "t.success = 1 AND t.is_voided = 0 AND t.type = 'pre_auth' AND t.is_captured = 0",
  voided: "t.is_voided = 1",
  refunded: "t.total_refunded_cents > 0",
  settled: "t.settled_at IS NOT NULL",
  unsettled: "t.success = 1 AND t.is_voided = 0 AND t.settled_at IS NULL",
} as const;
export type TransactionState = keyof typeof TRANSACTION_STATES;

/** The operations on a transaction after the charge. */
export type MoneyAction = "capture" | "void" | "refund";

/**
 * Why an operation is refused: every wrong-state 422 (`invalid_state`) says what to do instead.
 * Tests compare against these constants.
 */
export const STATE_MESSAGES = {
  child: (type: string, parentId: string, action: MoneyAction) =>
    `This transaction is a ${type} of transaction ${parentId}; ${action} the original transaction instead.`,
  failed: (action: MoneyAction) => `This transaction failed, so it cannot be ${pastTense(action)}.`,
  voided: (action: MoneyAction) => `This transaction has been voided, so it cannot be ${pastTense(action)}.`,
  captureNotPreAuth: "Only a pre_auth transaction can be captured; this one is a charge.",
  alreadyCaptured: "This pre_auth has already been captured; a pre_auth is captured once.",
  voidSettled: (id: string) =>
    `This transaction has settled, so it can no longer be voided; refund it instead (POST /transaction/${id}/refund).`,
  refundUnsettled: (id: string) =>
    `This transaction has not settled yet, so it cannot be refunded; void it instead (POST /transaction/${id}/void).`,
  refundUncaptured: (id: string) =>
    `This pre_auth was never captured, so there is nothing to refund; void it to release the authorization (POST /transaction/${id}/void).`,
  fullyRefunded: "This transaction has already been refunded in full.",
  captureTooMuch: (authorized: string) => `The total may not be greater than ${authorized}, the amount authorized.`,
  refundTooMuch: (remaining: string) =>
    `The total may not be greater than ${remaining}, the amount of this transaction not yet refunded.`,
  voidPartial: (full: string) =>
    `This transaction has not settled, so it can only be voided in full (${full}); omit the total or send ${full}.`,
} as const;

function pastTense(action: MoneyAction): string {
  return action === "capture" ? "captured" : action === "void" ? "voided" : "refunded";
}

/** "10.00": how amounts appear in messages. */
function amount(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** The money a top-level transaction moved: a charge's total, a pre_auth's captured amount. */
export function moneyCents(row: TransactionRow): number {
  if (row.type === "charge") return row.total_cents;
  if (row.type === "pre_auth") return row.captured_cents;
  return 0;
}

/** Money that can still be refunded from a charge or a captured pre_auth (once settled). */
export function refundableCents(row: TransactionRow): number {
  return Math.max(0, moneyCents(row) - row.total_refunded_cents);
}

/** A top-level charge or pre_auth that succeeded and was not voided: the only rows money operations act on. */
function isLiveParent(row: TransactionRow): boolean {
  return (
    row.parent_id === null &&
    row.success === 1 &&
    row.is_voided === 0 &&
    (row.type === "charge" || row.type === "pre_auth")
  );
}

/**
 * POST /charge's one write. RETURNING gives the stored row (defaults included) without reading it
 * back; the trigger of migration 009 keeps the list counter in the same statement.
 */
const INSERT_CHARGE_SQL = `INSERT INTO transactions (id, merchant_id, invoice_id, customer_id, payment_method_id, method,
    type, success, total_cents, last_four, auth_id, issuer_auth_code, message, decline_code, meta, is_merchant_present,
    reference_id, source, pre_auth, receipt_email_at, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  RETURNING *`;

export class TransactionService {
  /** Statements of the hot paths (charge, GET /transaction/{id}, every record), prepared once. */
  private readonly insertCharge: Statement<TransactionRow, SQLQueryBindings[]>;
  private readonly byId: Statement<TransactionRow, [string, string]>;
  private readonly childrenOf: Statement<TransactionRow & { _rowid: number }, [string]>;

  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
  ) {
    this.insertCharge = db.prepare(INSERT_CHARGE_SQL);
    this.byId = db.prepare("SELECT * FROM transactions WHERE id = ? AND merchant_id = ?");
    this.childrenOf = db.prepare("SELECT rowid AS _rowid, * FROM transactions WHERE parent_id = ?");
  }

  find(merchantId: string, id: string): TransactionRow | null {
    return this.byId.get(id, merchantId);
  }

  get(merchantId: string, id: string): TransactionRow {
    const row = this.find(merchantId, id);
    if (!row) throw notFound("Transaction");
    return row;
  }

  children(parentId: string): TransactionRow[] {
    // Sorted here, not with ORDER BY: in bun:sqlite that ORDER BY cost ~15 µs per call even with no rows
    // (measured; most transactions have no children), and every record asks once per transaction.
    const rows = this.childrenOf.all(parentId);
    if (rows.length > 1)
      rows.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a._rowid - b._rowid));
    return rows.map(({ _rowid, ...row }) => row);
  }

  /**
   * The API record of a row, with its payment method, customer and children. `known` is what the
   * caller has already read (a new charge: its payment method and customer, and no children yet),
   * so the record costs no query.
   */
  record(
    row: TransactionRow,
    known?: { pm: PaymentMethodRow; customer: CustomerRow; children: TransactionRow[] },
  ): Transaction {
    const pm = known?.pm ?? this.paymentMethods.get(row.merchant_id, row.payment_method_id);
    const customer = customerRecord(known?.customer ?? this.customers.get(row.merchant_id, row.customer_id));
    const settled = row.settled_at !== null;
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
      success: row.success === 1,
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
      // Operations act on the top-level transaction; its children are never refundable or voidable themselves.
      is_refundable: isLiveParent(row) && settled && refundableCents(row) > 0,
      is_voidable: isLiveParent(row) && !settled && row.total_refunded_cents === 0,
      is_voided: row.is_voided === 1,
      batch_id: row.batch_id,
      settled_at: row.settled_at,
      child_transactions: (known?.children ?? this.children(row.id)).map((child) => this.record(child)),
    };
  }

  recordOf(merchantId: string, id: string): Transaction {
    return this.record(this.get(merchantId, id));
  }

  /**
   * Authorizes a payment method with the simulated processor and stores the transaction,
   * approved or declined. Emits create_transaction, and returns the record it built for the
   * event with the row (building it costs as much as the insert). Call inside a transaction.
   */
  charge(merchantId: string, input: ChargeInput): { row: TransactionRow; record: Transaction } {
    const { pm, customer } = this.paymentMethods.chargeableWithCustomer(merchantId, input.paymentMethodId);
    if (pm.method === "card" && pm.card_exp) {
      const now = this.clock.now(merchantId);
      const month = Number(pm.card_exp.slice(0, 2));
      const year = 2000 + Number(pm.card_exp.slice(2));
      if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
        throw invalidState("The card on this payment method has expired.");
      }
    }
    const auth = authorize(pm.outcome, pm.method);
    // Time-ordered (UUIDv7): each insert lands at the right edge of the id index instead of on a
    // random page of it, which halved the insert and its share of the commit at 1M rows (measured).
    const id = Bun.randomUUIDv7();
    const now = this.clock.timestamp(merchantId);
    const row = this.insertCharge.get(
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
      input.receiptEmailAt ?? null,
      now,
      now,
    )!;
    const record = this.record(row, { pm, customer, children: [] });
    this.events.emit({ merchantId, name: "create_transaction", record });
    return { row, record };
  }

  /**
   * The top-level charge or pre_auth a money operation may act on, or the 422 that says why not
   * (a child, a failed or a voided transaction).
   */
  private operable(merchantId: string, id: string, action: MoneyAction): TransactionRow {
    const row = this.get(merchantId, id);
    if (row.parent_id !== null) throw invalidState(STATE_MESSAGES.child(row.type, row.parent_id, action));
    if (row.success !== 1) throw invalidState(STATE_MESSAGES.failed(action));
    if (row.is_voided === 1) throw invalidState(STATE_MESSAGES.voided(action));
    return row;
  }

  /** Stores a capture, void or refund under its parent. */
  private addChild(parent: TransactionRow, type: "capture" | "void" | "refund", cents: number, now: string): string {
    const id = crypto.randomUUID();
    this.db
      .query(
        `INSERT INTO transactions (id, merchant_id, parent_id, invoice_id, customer_id, payment_method_id, method, type,
           success, total_cents, last_four, auth_id, issuer_auth_code, meta, is_merchant_present, reference_id, source,
           created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        parent.merchant_id,
        parent.id,
        parent.invoice_id,
        parent.customer_id,
        parent.payment_method_id,
        parent.method,
        type,
        cents,
        parent.last_four,
        parent.auth_id,
        parent.issuer_auth_code,
        parent.is_merchant_present,
        parent.reference_id,
        "api",
        now,
        now,
      );
    return id;
  }

  /** Emits update_transaction with the parent's record (the new child included) and returns the row. */
  private updated(merchantId: string, id: string): TransactionRow {
    const row = this.get(merchantId, id);
    this.events.emit({ merchantId, name: "update_transaction", record: this.record(row) });
    return row;
  }

  /**
   * Captures a pre_auth once, for its full amount or less: a `capture` child; the parent is
   * `is_captured`. Call inside an immediate transaction. Returns the parent.
   */
  capture(merchantId: string, id: string, totalCents?: number): TransactionRow {
    const row = this.operable(merchantId, id, "capture");
    if (row.type !== "pre_auth") throw invalidState(STATE_MESSAGES.captureNotPreAuth);
    if (row.is_captured === 1) throw invalidState(STATE_MESSAGES.alreadyCaptured);
    const cents = totalCents ?? row.total_cents;
    if (cents > row.total_cents) {
      throw new ValidationFailed({ total: [STATE_MESSAGES.captureTooMuch(amount(row.total_cents))] });
    }
    const now = this.clock.timestamp(merchantId);
    this.addChild(row, "capture", cents, now);
    this.db
      .query("UPDATE transactions SET is_captured = 1, captured_cents = ?, updated_at = ? WHERE id = ?")
      .run(cents, now, row.id);
    return this.updated(merchantId, row.id);
  }

  /**
   * Voids a transaction that has not settled, in full: a `void` child; the parent (and its
   * capture, if any) is `is_voided` and never settles. Call inside an immediate transaction.
   */
  void(merchantId: string, id: string, totalCents?: number): TransactionRow {
    const row = this.operable(merchantId, id, "void");
    if (row.settled_at !== null) throw invalidState(STATE_MESSAGES.voidSettled(row.id));
    // A total is optional, but one that is not the full amount must not be silently voided in full.
    if (totalCents !== undefined && totalCents !== this.voidCents(row)) {
      throw new ValidationFailed({ total: [STATE_MESSAGES.voidPartial(amount(this.voidCents(row)))] });
    }
    const now = this.clock.timestamp(merchantId);
    this.addChild(row, "void", this.voidCents(row), now);
    this.db.query("UPDATE transactions SET is_voided = 1, updated_at = ? WHERE id = ?").run(now, row.id);
    // The capture of a pre_auth is what would settle: it is voided with its parent.
    this.db
      .query("UPDATE transactions SET is_voided = 1, updated_at = ? WHERE parent_id = ? AND type = 'capture'")
      .run(now, row.id);
    return this.updated(merchantId, row.id);
  }

  /** What a void reverses: the captured amount of a captured pre_auth, else the whole total. */
  private voidCents(row: TransactionRow): number {
    return row.type === "pre_auth" && row.is_captured === 1 ? row.captured_cents : row.total_cents;
  }

  /**
   * Refunds a settled charge or captured pre_auth, in part or (by default) all that remains:
   * a `refund` child; `total_refunded` grows. Never beyond what remains, even under concurrent
   * requests: the check and the write happen in the caller's immediate transaction.
   */
  refund(merchantId: string, id: string, totalCents?: number): TransactionRow {
    const row = this.operable(merchantId, id, "refund");
    if (row.type === "pre_auth" && row.is_captured === 0) throw invalidState(STATE_MESSAGES.refundUncaptured(row.id));
    if (row.settled_at === null) throw invalidState(STATE_MESSAGES.refundUnsettled(row.id));
    const remaining = refundableCents(row);
    if (remaining <= 0) throw invalidState(STATE_MESSAGES.fullyRefunded);
    const cents = totalCents ?? remaining;
    if (cents > remaining) throw new ValidationFailed({ total: [STATE_MESSAGES.refundTooMuch(amount(remaining))] });
    const now = this.clock.timestamp(merchantId);
    this.addChild(row, "refund", cents, now);
    this.db
      .query("UPDATE transactions SET total_refunded_cents = total_refunded_cents + ?, updated_at = ? WHERE id = ?")
      .run(cents, now, row.id);
    return this.updated(merchantId, row.id);
  }

  /** Voids before settlement (in full only), refunds after. */
  voidOrRefund(merchantId: string, id: string, totalCents?: number): TransactionRow {
    const row = this.operable(merchantId, id, "refund");
    if (row.settled_at !== null) return this.refund(merchantId, id, totalCents);
    return this.void(merchantId, id, totalCents);
  }

  list(merchantId: string, filters: TransactionFilters, page: PageRequest, url: string): Page<Transaction> {
    // Children (captures, voids, refunds) are listed under their parent, not on their own,
    // unless the filter asks for that kind of child: then the children themselves are the rows.
    const childType = filters.type === "capture" || filters.type === "void" || filters.type === "refund";
    const where = ["t.merchant_id = ?", childType ? "t.parent_id IS NOT NULL" : "t.parent_id IS NULL"];
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
    if (filters.batchId) {
      where.push(
        "(t.batch_id = ? OR EXISTS (SELECT 1 FROM transactions c WHERE c.parent_id = t.id AND c.batch_id = ?))",
      );
      params.push(filters.batchId, filters.batchId);
    }
    if (filters.state) where.push(TRANSACTION_STATES[filters.state]);
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
    // Unfiltered, the total is the per-merchant counter kept by triggers (migration 009), not a COUNT(*) over every row.
    const total =
      where.length === 2
        ? (this.db
            .query<{ n: number }, [string]>("SELECT top_level AS n FROM transaction_counts WHERE merchant_id = ?")
            .get(merchantId)?.n ?? 0)
        : this.db
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
