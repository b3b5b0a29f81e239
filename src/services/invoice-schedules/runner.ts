/**
 * The invoice schedules' clock job: every occurrence the merchant's sandbox clock passes makes one
 * invoice, and everything that invoice brings, in one unit of work stamped with the occurrence's
 * own sandbox time (clock.at), oldest occurrence first:
 *
 * 1. the invoice (DRAFT, schedule_id set): `create_invoice`;
 * 2. with `email_notification`, the invoice e-mail to the customer (its pay link, and the card it
 *    will be charged to): `send_invoice`;
 * 3. with a payment method on file (live, and a card not expired at the occurrence), the charge
 *    for the invoice (`create_transaction`, `update_invoice`): PAID, or ATTEMPTED with the declined
 *    attempt recorded; with `email_notification`, the receipt or the failure e-mail (with the pay link);
 * 4. the run row (schedule_id, occurrence_at) and the cursor moved to the next occurrence.
 *
 * Exactly once: the unit locks the schedule and reads its cursor again, so two processes, or an
 * advance and the real-time tick, never run one occurrence twice (the run row's key refuses it
 * too); a process killed mid-way leaves whole occurrences done and the cursor on the next one,
 * which the restarted process's first tick runs. A declined occurrence is not charged again: the
 * next attempt is the next occurrence (a new invoice, charged to the schedule's payment method as
 * it is then); the customer pays the declined one through the e-mailed link.
 */
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/invoice-schedules";
import type { SandboxClock } from "../clock";
import type { EventBus } from "../../domain/events";
import { formatTimestamp, parseTimestamp } from "../../domain/time";
import { parseJson } from "../../lib/json";
import type { CustomerService } from "../customers";
import type { InvoiceService } from "../invoices";
import type { MerchantRow, MerchantService } from "../merchants";
import type { PaymentMethodRow, PaymentMethodService } from "../payment-methods";
import type { EmailRow, Mailer } from "../mail/mailer";
import type { ReceiptService } from "../mail/receipts";
import type { InvoiceMail } from "../mail/invoice-mail";
import { cardExpired } from "../transactions/rules";
import { occurrenceAfter, storedRule } from "./rules";
import type { InvoiceScheduleService } from "./index";

export interface ScheduleRunnerDeps {
  db: Database;
  clock: SandboxClock;
  events: EventBus<Executor>;
  mailer: Mailer;
  services: {
    merchants: MerchantService;
    customers: CustomerService;
    paymentMethods: PaymentMethodService;
    invoices: InvoiceService;
    receipts: ReceiptService;
    invoiceMail: InvoiceMail;
    schedules: InvoiceScheduleService;
  };
}

/** What one occurrence did (for the caller to relay its e-mails once it committed). */
interface Occurrence {
  emails: EmailRow[];
}

export class ScheduleRunner {
  /** Each merchant's run in this process: one at a time (the clock's pin is per merchant). */
  private readonly running = new Map<string, Promise<number>>();
  /** Occurrences run by this process (tests bound work with it). */
  runs = 0;

  constructor(private readonly deps: ScheduleRunnerDeps) {}

  /** The merchants with an occurrence to come: the only ones the real-time tick visits. */
  pendingMerchants(): Promise<string[]> {
    return repo.merchantsWithSchedules(this.deps.db);
  }

  /** The merchant's next occurrence strictly after `afterMs` (where an advance stops), or null. */
  async nextStop(merchantId: string, afterMs: number): Promise<number | null> {
    const at = await repo.nextOccurrenceAfter(this.deps.db, merchantId, formatTimestamp(new Date(afterMs)));
    return at ? parseTimestamp(at).getTime() : null;
  }

  /** Runs every occurrence of the merchant due at or before `now`, oldest first. Answers how many ran. */
  run(merchantId: string, now: Date): Promise<number> {
    const before = this.running.get(merchantId) ?? Promise.resolve(0);
    const next = before.catch(() => 0).then(() => this.runDue(merchantId, now));
    this.running.set(merchantId, next);
    void next.finally(() => {
      if (this.running.get(merchantId) === next) this.running.delete(merchantId);
    });
    return next;
  }

  private async runDue(merchantId: string, now: Date): Promise<number> {
    const { db, clock, services, mailer } = this.deps;
    const until = formatTimestamp(now);
    let done = 0;
    for (;;) {
      // A cheap read first: the real-time tick calls this every second for merchants with schedules.
      const due = await repo.earliestDue(db, merchantId, until);
      if (!due?.next_run_at) return done;
      const merchant = await services.merchants.find(merchantId);
      if (!merchant) return done;
      const at = parseTimestamp(due.next_run_at).getTime();
      const occurrence = await clock.at(merchantId, at, () =>
        db.transaction((tx) => this.occur(tx, merchant, due.id, due.next_run_at!)),
      );
      // Another process ran it meanwhile: read again what is due.
      if (!occurrence) continue;
      // Durable before the next (SQLite's group commit would otherwise hold a whole advance in one
      // batch): a crash keeps every occurrence done, and its e-mails relay only once committed.
      await db.settled();
      for (const email of occurrence.emails) mailer.relayStored(email);
      done++;
      this.runs++;
    }
  }

  /** A payment method the occurrence can charge: live, and a card not expired at the occurrence. */
  private usable(pm: PaymentMethodRow | undefined, at: Date): pm is PaymentMethodRow {
    return !!pm && !pm.deleted_at && !(pm.method === "card" && pm.card_exp && cardExpired(pm.card_exp, at));
  }

  /** The occurrence of the schedule due `at`, in the unit of work `tx` (see the file comment); null: not due. */
  private async occur(
    tx: Executor,
    merchant: MerchantRow,
    scheduleId: string,
    until: string,
  ): Promise<Occurrence | null> {
    const { services, events, mailer } = this.deps;
    const merchantId = merchant.id;
    const row = await repo.lockSchedule(tx, merchantId, scheduleId);
    if (!row || row.active !== 1 || row.deleted_at || !row.next_run_at || row.next_run_at > until) return null;
    const at = row.next_run_at;
    const nextRunAt = occurrenceAfter(storedRule(row.rule), parseTimestamp(at));
    const customer = await services.customers.findRow(tx, merchantId, row.customer_id);
    if (!customer || customer.deleted_at) {
      // Nobody to bill: the schedule pauses (a PUT with active true resumes it from then on).
      await repo.editSchedule(tx, row.id, { active: 0, next_run_at: null, updated_at: at });
      const record = await services.schedules.get(merchantId, row.id, tx);
      await events.emit(tx, { merchantId, name: "update_scheduled_invoice", record });
      return { emails: [] };
    }
    const found = row.payment_method_id
      ? await services.paymentMethods.findRow(tx, merchantId, row.payment_method_id)
      : undefined;
    const pm = this.usable(found, parseTimestamp(at)) ? found : undefined;
    const notify = row.email_notification === 1 && customer.email !== "";
    const { row: invoice } = await services.invoices.createScheduled(tx, merchantId, {
      scheduleId: row.id,
      customerId: row.customer_id,
      paymentMethodId: pm?.id ?? null,
      totalCents: Number(row.total_cents),
      meta: parseJson<Record<string, unknown>>(row.meta, {}),
      url: row.url,
      email: customer.email,
      sendReceipt: notify,
    });
    const emails: EmailRow[] = [];
    if (notify) {
      const last = pm && (pm.method === "card" ? pm.card_last_four : pm.bank_last_four);
      const note = pm
        ? `It will be paid automatically with the ${pm.method === "card" ? "card" : "bank account"} ending ${last}.`
        : "";
      emails.push(
        await mailer.store(tx, services.invoiceMail.message(merchant, invoice, customer.email, { note }), at),
      );
      await services.invoices.markSent(merchantId, invoice.id, tx);
      const record = await services.invoices.get(merchantId, invoice.id, tx);
      await events.emit(tx, { merchantId, name: "send_invoice", record });
    }
    let status = invoice.status;
    if (pm) {
      const paid = await services.invoices.pay(tx, merchantId, invoice.id, pm.id, {
        source: "schedule",
        isMerchantPresent: false,
      });
      status = paid.invoice.status;
      const receipt = await services.receipts.invoicePaymentMessage(tx, merchant, paid.invoice, paid.transaction);
      if (receipt) emails.push(await mailer.store(tx, receipt, at));
    }
    await repo.recordRun(tx, {
      scheduleId: row.id,
      merchantId,
      occurrenceAt: at,
      invoiceId: invoice.id,
      invoiceStatus: status,
      nextRunAt,
    });
    return { emails };
  }
}
