/**
 * Transactions: charges and pre-auths the simulated processor authorizes, and the money operations
 * after them (capture, void, refund) as child rows. The record shape is in ./records.ts, the
 * refusal messages in ./rules.ts.
 *
 * Vocabulary (docs/architecture.md, "Services"): `get` (the record by id, or a 404), `find` (the
 * record, or undefined), `list` (a page); the domain verbs `charge`, `credit`, `capture`, `void`, `refund`,
 * `voidOrRefund`, `operate` (one operation in its own unit of work), `operateIn` (in the caller's).
 * For a unit of work that goes on with the stored row: `getRow`, `findRow`, and the record
 * builders `toRecord`, `toRecords`.
 */
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/transactions";
import type { TransactionRow, TransactionType } from "../../storage/repositories/transactions";
import type { SandboxClock } from "../clock";
import type { EventBus } from "../../domain/events";
import type { Listing, PageRequest } from "../../domain/pagination";
import { authorize, checkDecline, checksOf, hasMismatch, type CheckResults } from "../../domain/gateway";
import type { Outcome } from "../../../packages/rules/test-data";
import { parseJson } from "../../lib/json";
import { findMerchant } from "../../storage/repositories/merchants";
import { takeNextOutcome } from "../../storage/repositories/sandbox-outcomes";
import type { ChargeablePaymentMethodRow } from "../../storage/repositories/payment-methods";
import type { CustomerRow, CustomerService } from "../customers";
import { invalidState, notFound, ValidationFailed } from "../../domain/errors";
import type { PaymentMethodRow, PaymentMethodService } from "../payment-methods";
import { buildRecord, refundableCents, transactionRecords, type RecordParts, type Transaction } from "./records";
import { amount, cardExpired, STATE_MESSAGES, type MoneyAction } from "./rules";
import { credit, type CreditInput } from "./credits";
import { captureSurchargeCents, movedSurchargeCents, refundSurchargeCents } from "./surcharges";
import { decideSurcharge, type SurchargePolicy } from "../../domain/surcharge";
import { surchargePolicyOf } from "../merchant-settings";

/** A merchant that is gone surcharges nothing (its charge fails on its payment method anyway). */
const NO_SURCHARGE_ROW = { is_surcharge_enabled: 0, surcharge_rate_bps: 0 };

export type { TransactionRow, TransactionType };
export {
  TRANSACTION_STATES,
  type TransactionFilters,
  type TransactionState,
} from "../../storage/repositories/transactions";

export { moneyCents, refundableCents, type Transaction } from "./records";
export { STATE_MESSAGES, type MoneyAction } from "./rules";
export { CREDIT_DAILY_LIMIT_CENTS, CREDIT_MESSAGES, type CreditInput } from "./credits";

export interface ChargeInput {
  paymentMethodId: string;
  totalCents: number;
  preAuth: boolean;
  meta: Record<string, unknown>;
  invoiceId?: string | null;
  /** The schedule of the invoice paid (the invoice's schedule_id), carried by the transaction. */
  scheduleId?: string | null;
  source?: string | null;
  isMerchantPresent?: boolean;
  /** When a receipt e-mail goes out with this payment (pay() with send_receipt). */
  receiptEmailAt?: string | null;
  /** The caller syncs the charge's invoice itself (pay()): its event says so to the invoice listener. */
  invoiceSyncedByCaller?: boolean;
  /**
   * What the merchant surcharges, from the merchant row the caller already has (POST /charge's
   * authentication read it); when omitted, charge() reads the merchant. totalCents is the sale:
   * a surcharge is added on top of it (src/domain/surcharge.ts).
   */
  surcharge?: SurchargePolicy;
  /** chargeableWithCustomer()'s answer, when the caller has it (pay()); omitted, charge() reads it. */
  chargeable?: { pm: ChargeablePaymentMethodRow; customer: CustomerRow };
}

type Charged = { row: TransactionRow; record: Transaction; pm: ChargeablePaymentMethodRow; customer: CustomerRow };

export class TransactionService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
  ) {}

  /** GET /transaction/{id}: the transaction's record (with its children), or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<Transaction> {
    return this.toRecord(ex, await this.getRow(ex, merchantId, id));
  }

  /** The transaction's record, or undefined when the merchant has none with this id. */
  async find(merchantId: string, id: string, ex: Executor = this.db): Promise<Transaction | undefined> {
    const row = await this.findRow(ex, merchantId, id);
    return row && this.toRecord(ex, row);
  }

  /**
   * GET /transaction: one page, newest first. Children (captures, voids, refunds) are listed under
   * their parent, not on their own, unless the filter asks for that kind of child: then the
   * children themselves are the rows.
   */
  async list(merchantId: string, filters: repo.TransactionFilters, page: PageRequest): Promise<Listing<Transaction>> {
    const { rows, total } = await repo.listTransactions(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return { rows: await this.toRecords(this.db, rows), total };
  }

  /** The stored row, or a 404: for a unit of work that goes on with it. */
  async getRow(ex: Executor, merchantId: string, id: string): Promise<TransactionRow> {
    const row = await this.findRow(ex, merchantId, id);
    if (!row) throw notFound("Transaction");
    return row;
  }

  /** The stored row, or undefined. */
  findRow(ex: Executor, merchantId: string, id: string): Promise<TransactionRow | undefined> {
    return repo.findTransaction(ex, merchantId, id);
  }

  /**
   * The API record of a row, with its payment method, customer and children. `known` is what the
   * caller has already read (a new charge: its payment method and customer, and no children yet),
   * so the record costs no query.
   */
  async toRecord(ex: Executor, row: TransactionRow, known?: RecordParts): Promise<Transaction> {
    if (known) return buildRecord(row, known);
    return (await this.toRecords(ex, [row]))[0]!;
  }

  /**
   * The API records of rows (./records.ts: three queries for any number, sent together). `customers`
   * holds customers the caller has read already (an invoice's), which are not read again.
   */
  toRecords(
    ex: Executor,
    rows: readonly TransactionRow[],
    customers?: ReadonlyMap<string, CustomerRow>,
  ): Promise<Transaction[]> {
    return transactionRecords(ex, rows, customers);
  }

  /**
   * PUT /transaction/{id}: merges `meta` into the stored meta (a member set to null is removed) and
   * emits update_transaction. Children carry their own meta; the change is the transaction's alone.
   */
  async update(merchantId: string, id: string, changes: { meta: Record<string, unknown> }): Promise<Transaction> {
    return this.db.transaction(async (tx) => {
      const row = await repo.lockTransaction(tx, merchantId, id);
      if (!row) throw notFound("Transaction");
      const meta = parseJson<Record<string, unknown>>(row.meta, {});
      for (const [key, value] of Object.entries(changes.meta)) {
        if (value === null) delete meta[key];
        else meta[key] = value;
      }
      await repo.updateTransactionMeta(tx, row.id, JSON.stringify(meta), this.clock.timestamp(merchantId));
      const record = await this.get(merchantId, row.id, tx);
      await this.events.emit(tx, { merchantId, name: "update_transaction", record });
      return record;
    });
  }

  /**
   * The transaction's family, oldest first: its top-level transaction and that one's children
   * (captures, voids, refunds). Throws a 404 when the merchant has no transaction with this id.
   */
  async family(merchantId: string, id: string, ex: Executor = this.db): Promise<TransactionRow[]> {
    const row = await this.getRow(ex, merchantId, id);
    const root = row.parent_id ? await this.getRow(ex, merchantId, row.parent_id) : row;
    return [root, ...((await repo.childrenOf(ex, [root.id])).get(root.id) ?? [])];
  }

  /** GET /transaction/{id}/related: the other transactions of its family (parent, children, siblings), oldest first. */
  async related(merchantId: string, id: string): Promise<Transaction[]> {
    const others = (await this.family(merchantId, id)).filter((row) => row.id !== id);
    return this.toRecords(this.db, others);
  }

  /**
   * Authorizes a payment method with the simulated processor and stores the transaction, approved
   * or declined, in the caller's unit of work. Emits create_transaction; returns the row, the record
   * built for the event (building it again costs as much as the insert), the payment method and customer.
   */
  async charge(ex: Executor, merchantId: string, input: ChargeInput): Promise<Charged> {
    const { pm, customer } =
      input.chargeable ?? (await this.paymentMethods.chargeableWithCustomer(ex, merchantId, input.paymentMethodId));
    if (pm.method === "card" && pm.card_exp && cardExpired(pm.card_exp, this.clock.now(merchantId))) {
      throw invalidState(STATE_MESSAGES.cardExpired);
    }
    const policy = input.surcharge ?? surchargePolicyOf((await findMerchant(ex, merchantId)) ?? NO_SURCHARGE_ROW);
    const surcharge = decideSurcharge(policy, pm, input.totalCents);
    const { outcome, checks } = await this.decide(ex, merchantId, pm);
    const auth = authorize(outcome, pm.method);
    // Time-ordered (UUIDv7): each insert lands at the right edge of the id index instead of on a
    // random page of it, which halved the insert and its share of the commit at 1M rows (measured).
    const id = Bun.randomUUIDv7();
    const now = this.clock.timestamp(merchantId);
    const row = await repo.insertCharge(ex, {
      id,
      merchant_id: merchantId,
      invoice_id: input.invoiceId ?? null,
      customer_id: pm.customer_id,
      payment_method_id: pm.id,
      method: pm.method,
      type: input.preAuth ? "pre_auth" : "charge",
      success: auth.success ? 1 : 0,
      total_cents: input.totalCents + surcharge.cents,
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
      surcharge_cents: surcharge.cents,
      schedule_id: input.scheduleId ?? null,
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
    return { row, record, pm, customer };
  }

  /** POST /credit: money to a payment method with no prior charge, in the caller's unit of work (./credits.ts). */
  credit(ex: Executor, merchantId: string, input: CreditInput): Promise<{ row: TransactionRow; record: Transaction }> {
    return credit(
      ex,
      { clock: this.clock, events: this.events, paymentMethods: this.paymentMethods },
      merchantId,
      input,
    );
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
    pm: ChargeablePaymentMethodRow,
  ): Promise<{ outcome: Outcome; checks: CheckResults | null }> {
    // An armed sequence (POST /_sandbox/outcomes) decides first, and wholly: its outcome is final.
    const armed = pm.outcomes_armed ? ((await takeNextOutcome(ex, pm)) as Outcome | undefined) : undefined;
    let outcome: Outcome = armed ?? pm.outcome;
    if (pm.method !== "card") return { outcome, checks: null };
    const checks = checksOf(pm);
    if (!armed && outcome === "approve" && hasMismatch(checks)) {
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
    if (row.type === "credit") throw invalidState(STATE_MESSAGES.credit(action));
    if (row.success !== 1) throw invalidState(STATE_MESSAGES.failed(action));
    if (row.is_voided === 1) throw invalidState(STATE_MESSAGES.voided(action));
    return row;
  }

  /** Emits update_transaction with the parent's record (the new child included) and returns the row. */
  private async updated(ex: Executor, merchantId: string, id: string): Promise<TransactionRow> {
    const row = await this.getRow(ex, merchantId, id);
    await this.events.emit(ex, { merchantId, name: "update_transaction", record: await this.toRecord(ex, row) });
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
    const now = this.clock.timestamp(merchantId);
    const surchargeCents = captureSurchargeCents(row, cents);
    await repo.insertChild(ex, row, { id: crypto.randomUUID(), type: "capture", cents, surchargeCents, now });
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
    const now = this.clock.timestamp(merchantId);
    // A void reverses the whole surcharge of what it voids: all of a charge's, a capture's share.
    const surchargeCents =
      row.type === "pre_auth" && row.is_captured === 1 ? movedSurchargeCents(row) : row.surcharge_cents;
    await repo.insertChild(ex, row, {
      id: crypto.randomUUID(),
      type: "void",
      cents: this.voidCents(row),
      surchargeCents,
      now,
    });
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
    const now = this.clock.timestamp(merchantId);
    // The surcharge goes back in proportion (./surcharges.ts): all of it once all is refunded.
    const surchargeCents = refundSurchargeCents(row, cents);
    await repo.insertChild(ex, row, { id: crypto.randomUUID(), type: "refund", cents, surchargeCents, now });
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
    return this.toRecord(ex, row);
  }
}
