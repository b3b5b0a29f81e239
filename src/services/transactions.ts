import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/transactions";
import type { TransactionRow, TransactionType } from "../storage/repositories/transactions";
import { customersByIds } from "../storage/repositories/customers";
import { paymentMethodsByIds } from "../storage/repositories/payment-methods";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import { parseJson } from "../lib/json";
import { centsToNumber } from "../domain/money";
import type { Listing, PageRequest } from "../domain/pagination";
import {
  authorize,
  AVS_RESPONSES,
  avsResponse,
  checkDecline,
  checksOf,
  cvvResponse,
  hasMismatch,
  type CheckResults,
} from "../domain/gateway";
import type { Outcome } from "../../packages/rules/test-data";
import { findMerchant } from "../storage/repositories/merchants";
import { customerRecord, type CustomerRow, type CustomerService } from "./customers";
import type { TransactionRecord } from "../domain/schemas/records";
import { DELETED_MEANWHILE, invalidState, notFound, ValidationFailed } from "../domain/errors";
import type { PaymentMethodRow, PaymentMethodService } from "./payment-methods";

export type { TransactionRow, TransactionType };
export {
  TRANSACTION_STATES,
  type TransactionFilters,
  type TransactionState,
} from "../storage/repositories/transactions";

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
  /** The caller syncs the charge's invoice itself (pay()): its event says so to the invoice listener. */
  invoiceSyncedByCaller?: boolean;
}

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

/** A card authorization's check results as the record shows them: the gateways' codes and the results. */
function checkFields(row: TransactionRow) {
  const { avs_street_result: street, avs_zip_result: zip, cvv_result: cvv } = row;
  const avs = street !== null && zip !== null ? avsResponse(street, zip) : null;
  return {
    avs_response: avs,
    avs_message: avs === null ? null : AVS_RESPONSES[avs],
    cvv_response: cvv === null ? null : cvvResponse(cvv),
    avs_street_result: street,
    avs_zip_result: zip,
    cvv_result: cvv,
  };
}

/** What a record is built from besides its row. */
interface RecordParts {
  pm: PaymentMethodRow;
  customer: CustomerRow;
  children: TransactionRow[];
}

/** The API record of a row from its parts; children are recorded with the payment methods and customers given. */
function buildRecord(
  row: TransactionRow,
  parts: RecordParts,
  lookup: (child: TransactionRow) => RecordParts = () => ({ ...parts, children: [] }),
): Transaction {
  const { pm } = parts;
  const customer = customerRecord(parts.customer);
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
    ...checkFields(row),
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
    child_transactions: parts.children.map((child) => buildRecord(child, lookup(child))),
  };
}

export class TransactionService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
  ) {}

  async find(ex: Executor, merchantId: string, id: string): Promise<TransactionRow | null> {
    return (await repo.findTransaction(ex, merchantId, id)) ?? null;
  }

  async get(ex: Executor, merchantId: string, id: string): Promise<TransactionRow> {
    const row = await this.find(ex, merchantId, id);
    if (!row) throw notFound("Transaction");
    return row;
  }

  /**
   * The API records of rows, with their payment methods, customers and children: three queries
   * for any number of rows (children, then every payment method and customer they name).
   */
  /**
   * The API records of rows: their children, payment methods and customers in one query each.
   * `customers` holds customers the caller has read already (an invoice's), which are not read again.
   */
  async records(
    ex: Executor,
    rows: readonly TransactionRow[],
    customers: ReadonlyMap<string, CustomerRow> = new Map(),
  ): Promise<Transaction[]> {
    if (rows.length === 0) return [];
    const children = await repo.childrenOf(
      ex,
      rows.map((row) => row.id),
    );
    const all = [...rows, ...[...children.values()].flat()];
    const pms = await paymentMethodsByIds(
      ex,
      all.map((row) => row.payment_method_id),
    );
    const missing = all.map((row) => row.customer_id).filter((id) => !customers.has(id));
    const fetched = missing.length > 0 ? await customersByIds(ex, missing) : new Map<string, CustomerRow>();
    const partsOf = (row: TransactionRow): RecordParts => {
      const pm = pms.get(row.payment_method_id);
      const customer = customers.get(row.customer_id) ?? fetched.get(row.customer_id);
      // Both are only ever deleted with every transaction of the merchant (a reset): one that ran
      // between this read's statements.
      if (!pm || !customer) throw invalidState(DELETED_MEANWHILE);
      return { pm, customer, children: children.get(row.id) ?? [] };
    };
    return rows.map((row) => buildRecord(row, partsOf(row), partsOf));
  }

  /**
   * The API record of a row, with its payment method, customer and children. `known` is what the
   * caller has already read (a new charge: its payment method and customer, and no children yet),
   * so the record costs no query.
   */
  async record(ex: Executor, row: TransactionRow, known?: RecordParts): Promise<Transaction> {
    if (known) return buildRecord(row, known);
    return (await this.records(ex, [row]))[0]!;
  }

  async recordOf(ex: Executor, merchantId: string, id: string): Promise<Transaction> {
    return this.record(ex, await this.get(ex, merchantId, id));
  }

  /** A transaction's record, or null when the merchant has none with this id. */
  async findRecord(merchantId: string, id: string): Promise<Transaction | null> {
    const row = await this.find(this.db, merchantId, id);
    return row ? this.record(this.db, row) : null;
  }

  /** GET /transaction/{id}. */
  show(merchantId: string, id: string): Promise<Transaction> {
    return this.recordOf(this.db, merchantId, id);
  }

  /**
   * Authorizes a payment method with the simulated processor and stores the transaction,
   * approved or declined, in the caller's unit of work. Emits create_transaction, and returns the
   * record it built for the event with the row (building it costs as much as the insert).
   */
  async charge(
    ex: Executor,
    merchantId: string,
    input: ChargeInput,
  ): Promise<{ row: TransactionRow; record: Transaction }> {
    const { pm, customer } = await this.paymentMethods.chargeableWithCustomer(ex, merchantId, input.paymentMethodId);
    if (pm.method === "card" && pm.card_exp) {
      const now = await this.clock.now(merchantId);
      const month = Number(pm.card_exp.slice(0, 2));
      const year = 2000 + Number(pm.card_exp.slice(2));
      if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
        throw invalidState("The card on this payment method has expired.");
      }
    }
    const { outcome, checks } = await this.decide(ex, merchantId, pm);
    const auth = authorize(outcome, pm.method);
    // Time-ordered (UUIDv7): each insert lands at the right edge of the id index instead of on a
    // random page of it, which halved the insert and its share of the commit at 1M rows (measured).
    const id = Bun.randomUUIDv7();
    const now = await this.clock.timestamp(merchantId);
    const row = await repo.insertCharge(ex, {
      id,
      merchant_id: merchantId,
      invoice_id: input.invoiceId ?? null,
      customer_id: pm.customer_id,
      payment_method_id: pm.id,
      method: pm.method,
      type: input.preAuth ? "pre_auth" : "charge",
      success: auth.success ? 1 : 0,
      total_cents: input.totalCents,
      last_four: (pm.method === "card" ? pm.card_last_four : pm.bank_last_four) ?? "",
      auth_id: auth.authId,
      issuer_auth_code: auth.issuerAuthCode,
      message: auth.message,
      decline_code: auth.declineCode,
      avs_street_result: checks?.street ?? null,
      avs_zip_result: checks?.zip ?? null,
      cvv_result: checks?.cvv ?? null,
      meta: JSON.stringify(input.meta),
      is_merchant_present: input.isMerchantPresent ? 1 : 0,
      reference_id: auth.authId ?? "",
      source: input.source ?? null,
      pre_auth: input.preAuth ? 1 : 0,
      receipt_email_at: input.receiptEmailAt ?? null,
      created_at: now,
      updated_at: now,
    });
    const record = buildRecord(row, { pm, customer, children: [] });
    await this.events.emit(ex, {
      merchantId,
      name: "create_transaction",
      record,
      ...(input.invoiceSyncedByCaller && { invoiceSyncedByCaller: true }),
    });
    return { row, record };
  }

  /**
   * What the processor does with this authorization: the payment method's outcome, and on a card
   * the issuer's checks, which decline an approval on a CVV mismatch, or on an address mismatch
   * the merchant checks (its AVS settings, read only when a check failed). The checks recorded
   * agree with the decline: an `incorrect_cvv` card reports the CVV as not matching.
   */
  private async decide(
    ex: Executor,
    merchantId: string,
    pm: PaymentMethodRow,
  ): Promise<{ outcome: Outcome; checks: CheckResults | null }> {
    let outcome: Outcome = pm.outcome;
    if (pm.method !== "card") return { outcome, checks: null };
    const checks = checksOf(pm);
    if (outcome === "approve" && hasMismatch(checks)) {
      const merchant = await findMerchant(ex, merchantId);
      const policy = { avsZip: merchant?.avs_zip === 1, avsStreet: merchant?.avs_street === 1 };
      outcome = checkDecline(checks, policy) ?? "approve";
    }
    if (outcome === "incorrect_cvv") checks.cvv = "no_match";
    if (outcome === "incorrect_zip") checks.zip = "no_match";
    if (outcome === "incorrect_address") checks.street = "no_match";
    return { outcome, checks };
  }

  /**
   * The top-level charge or pre_auth a money operation may act on, or the 422 that says why not
   * (a child, a failed or a voided transaction).
   */
  private async operable(ex: Executor, merchantId: string, id: string, action: MoneyAction): Promise<TransactionRow> {
    // Locked for the rest of the unit of work: concurrent operations on one transaction take turns.
    const row = await repo.lockTransaction(ex, merchantId, id);
    if (!row) throw notFound("Transaction");
    if (row.parent_id !== null) throw invalidState(STATE_MESSAGES.child(row.type, row.parent_id, action));
    if (row.success !== 1) throw invalidState(STATE_MESSAGES.failed(action));
    if (row.is_voided === 1) throw invalidState(STATE_MESSAGES.voided(action));
    return row;
  }

  /** Emits update_transaction with the parent's record (the new child included) and returns the row. */
  private async updated(ex: Executor, merchantId: string, id: string): Promise<TransactionRow> {
    const row = await this.get(ex, merchantId, id);
    await this.events.emit(ex, { merchantId, name: "update_transaction", record: await this.record(ex, row) });
    return row;
  }

  /**
   * Captures a pre_auth once, for its full amount or less: a `capture` child; the parent is
   * `is_captured`. In the caller's unit of work. Returns the parent.
   */
  async capture(ex: Executor, merchantId: string, id: string, totalCents?: number): Promise<TransactionRow> {
    const row = await this.operable(ex, merchantId, id, "capture");
    if (row.type !== "pre_auth") throw invalidState(STATE_MESSAGES.captureNotPreAuth);
    if (row.is_captured === 1) throw invalidState(STATE_MESSAGES.alreadyCaptured);
    const cents = totalCents ?? row.total_cents;
    if (cents > row.total_cents) {
      throw new ValidationFailed({ total: [STATE_MESSAGES.captureTooMuch(amount(row.total_cents))] });
    }
    const now = await this.clock.timestamp(merchantId);
    await repo.insertChild(ex, row, { id: crypto.randomUUID(), type: "capture", cents, now });
    await repo.markCaptured(ex, row.id, cents, now);
    return this.updated(ex, merchantId, row.id);
  }

  /**
   * Voids a transaction that has not settled, in full: a `void` child; the parent (and its
   * capture, if any) is `is_voided` and never settles. In the caller's unit of work.
   */
  async void(ex: Executor, merchantId: string, id: string, totalCents?: number): Promise<TransactionRow> {
    const row = await this.operable(ex, merchantId, id, "void");
    if (row.settled_at !== null) throw invalidState(STATE_MESSAGES.voidSettled(row.id));
    // A total is optional, but one that is not the full amount must not be silently voided in full.
    if (totalCents !== undefined && totalCents !== this.voidCents(row)) {
      throw new ValidationFailed({ total: [STATE_MESSAGES.voidPartial(amount(this.voidCents(row)))] });
    }
    const now = await this.clock.timestamp(merchantId);
    await repo.insertChild(ex, row, { id: crypto.randomUUID(), type: "void", cents: this.voidCents(row), now });
    await repo.markVoided(ex, row.id, now);
    return this.updated(ex, merchantId, row.id);
  }

  /** What a void reverses: the captured amount of a captured pre_auth, else the whole total. */
  private voidCents(row: TransactionRow): number {
    return row.type === "pre_auth" && row.is_captured === 1 ? row.captured_cents : row.total_cents;
  }

  /**
   * Refunds a settled charge or captured pre_auth, in part or (by default) all that remains:
   * a `refund` child; `total_refunded` grows. Never beyond what remains, even under concurrent
   * requests: the check and the write happen in the caller's unit of work.
   */
  async refund(ex: Executor, merchantId: string, id: string, totalCents?: number): Promise<TransactionRow> {
    const row = await this.operable(ex, merchantId, id, "refund");
    if (row.type === "pre_auth" && row.is_captured === 0) throw invalidState(STATE_MESSAGES.refundUncaptured(row.id));
    if (row.settled_at === null) throw invalidState(STATE_MESSAGES.refundUnsettled(row.id));
    const remaining = refundableCents(row);
    if (remaining <= 0) throw invalidState(STATE_MESSAGES.fullyRefunded);
    const cents = totalCents ?? remaining;
    if (cents > remaining) throw new ValidationFailed({ total: [STATE_MESSAGES.refundTooMuch(amount(remaining))] });
    const now = await this.clock.timestamp(merchantId);
    await repo.insertChild(ex, row, { id: crypto.randomUUID(), type: "refund", cents, now });
    await repo.addRefunded(ex, row.id, cents, now);
    return this.updated(ex, merchantId, row.id);
  }

  /** Voids before settlement (in full only), refunds after. */
  async voidOrRefund(ex: Executor, merchantId: string, id: string, totalCents?: number): Promise<TransactionRow> {
    const row = await this.operable(ex, merchantId, id, "refund");
    if (row.settled_at !== null) return this.refund(ex, merchantId, id, totalCents);
    return this.void(ex, merchantId, id, totalCents);
  }

  /** One money operation in a unit of work of its own; answers the parent's record (the dashboard's buttons). */
  async operate(
    merchantId: string,
    id: string,
    action: MoneyAction | "void-or-refund",
    totalCents?: number,
  ): Promise<Transaction> {
    return this.db.transaction((tx) => this.operateIn(tx, merchantId, id, action, totalCents));
  }

  /** One money operation in the caller's unit of work; answers the parent's record. */
  async operateIn(
    ex: Executor,
    merchantId: string,
    id: string,
    action: MoneyAction | "void-or-refund",
    totalCents?: number,
  ): Promise<Transaction> {
    const row =
      action === "capture"
        ? await this.capture(ex, merchantId, id, totalCents)
        : action === "void"
          ? await this.void(ex, merchantId, id, totalCents)
          : action === "refund"
            ? await this.refund(ex, merchantId, id, totalCents)
            : await this.voidOrRefund(ex, merchantId, id, totalCents);
    return this.record(ex, row);
  }

  /**
   * Children (captures, voids, refunds) are listed under their parent, not on their own, unless
   * the filter asks for that kind of child: then the children themselves are the rows.
   */
  async list(merchantId: string, filters: repo.TransactionFilters, page: PageRequest): Promise<Listing<Transaction>> {
    const { rows, total } = await repo.listTransactions(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return { rows: await this.records(this.db, rows), total };
  }
}
