/**
 * Invoice schedules: a customer billed by an iCalendar RRULE (./rules.ts). This file holds the
 * schedule records and their changes; ./runner.ts makes the invoices as the sandbox clock passes
 * each occurrence.
 *
 * Vocabulary (docs/architecture.md, "Services"): `get` (the record by id, or a 404), `list` (a page
 * of live schedules), `create`, `update`, `delete`; `toRecord` for a unit of work that has the row.
 * Events: create_scheduled_invoice, update_scheduled_invoice, delete_scheduled_invoice.
 */
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/invoice-schedules";
import type { InvoiceScheduleRow, ScheduleFilters } from "../../storage/repositories/invoice-schedules";
import type { SandboxClock } from "../clock";
import type { EventBus } from "../../domain/events";
import type { Listing, PageRequest } from "../../domain/pagination";
import { centsToNumber } from "../../domain/money";
import { formatTimestamp, parseTimestamp } from "../../domain/time";
import { assertValid, invalidState, notFound } from "../../domain/errors";
import type {
  InvoiceScheduleBody,
  InvoiceScheduleRecord,
  InvoiceScheduleUpdateBody,
  ScheduleStatus,
} from "../../domain/schemas/invoice-schedules";
import { MESSAGES } from "../../../packages/rules/messages";
import { addError, parseTotalCents, validateMeta, type FieldErrors } from "../../../packages/rules/validation";
import { parseJson } from "../../lib/json";
import type { CustomerService } from "../customers";
import type { PaymentMethodService } from "../payment-methods";
import { defaultInvoiceUrl } from "../invoices";
import { checkLineItemsTotal, priceLineItems } from "../catalog/line-items";
import { describeRule, occurrenceAfter, occurrenceFrom, parseRule, SCHEDULE_MESSAGES, storedRule } from "./rules";

export type { InvoiceScheduleRow, ScheduleFilters };
export { SCHEDULE_MESSAGES } from "./rules";

export type InvoiceSchedule = InvoiceScheduleRecord;

const EVENT = "InvoiceGenerator";

/** ACTIVE, PAUSED (active false), COMPLETED (no occurrence left), DELETED. */
export function scheduleStatus(row: InvoiceScheduleRow): ScheduleStatus {
  if (row.deleted_at) return "DELETED";
  if (row.active !== 1) return "PAUSED";
  return row.next_run_at ? "ACTIVE" : "COMPLETED";
}

export class InvoiceScheduleService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
    private readonly customers: CustomerService,
    private readonly paymentMethods: PaymentMethodService,
    private readonly publicUrl: () => string,
  ) {}

  /** The schedule's record (deleted ones too), or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<InvoiceSchedule> {
    const row = await repo.findSchedule(ex, merchantId, id);
    if (!row) throw notFound("Invoice schedule");
    return this.toRecord(ex, row);
  }

  /** GET /invoice/schedule: one page of the merchant's live schedules (newest first by default). */
  async list(merchantId: string, filters: ScheduleFilters, page: PageRequest): Promise<Listing<InvoiceSchedule>> {
    const { rows, total } = await repo.listSchedules(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    const records: InvoiceSchedule[] = [];
    for (const row of rows) records.push(await this.toRecord(this.db, row));
    return { rows: records, total };
  }

  /** The API record of a row: its customer, payment method, rule in words and invoices made. */
  async toRecord(ex: Executor, row: InvoiceScheduleRow): Promise<InvoiceSchedule> {
    const customer = await this.customers.get(row.merchant_id, row.customer_id, ex);
    const pm = row.payment_method_id
      ? await this.paymentMethods.findRow(ex, row.merchant_id, row.payment_method_id)
      : undefined;
    const status = scheduleStatus(row);
    const rule = describeRule(
      storedRule(row.rule),
      status === "ACTIVE" && row.next_run_at ? parseTimestamp(row.next_run_at) : null,
    );
    return {
      id: row.id,
      merchant_id: row.merchant_id,
      customer_id: row.customer_id,
      customer,
      payment_method_id: row.payment_method_id,
      payment_method: pm ? await this.paymentMethods.toRecord(ex, pm) : null,
      active: row.active === 1,
      status,
      rule: row.rule,
      ...rule,
      count: Number(row.run_count),
      last_run_at: row.last_run_at,
      next_run_at: row.next_run_at,
      last_invoice_status: row.last_invoice_status,
      event: EVENT,
      total: centsToNumber(Number(row.total_cents)),
      meta: parseJson<Record<string, unknown>>(row.meta, {}),
      url: row.url,
      email_notification: row.email_notification === 1,
      is_partial_payment_enabled: false,
      files: parseJson<string[]>(row.files, []),
      channel: "api",
      invoice_ids: await repo.scheduleInvoiceIds(ex, row.merchant_id, row.id),
      created_at: row.created_at,
      updated_at: row.updated_at,
      deleted_at: row.deleted_at,
    };
  }

  /**
   * The customer and payment method of a schedule, checked: the customer live, the payment
   * method live and the customer's. Adds field errors; answers the customer id to use.
   */
  private async checkParties(
    ex: Executor,
    merchantId: string,
    customerId: string | undefined,
    paymentMethodId: string | null | undefined,
    errors: FieldErrors,
  ): Promise<string | undefined> {
    const pm = paymentMethodId ? await this.paymentMethods.findRow(ex, merchantId, paymentMethodId) : undefined;
    if (paymentMethodId && !pm) addError(errors, "payment_method_id", SCHEDULE_MESSAGES.paymentMethodUnknown);
    else if (pm?.deleted_at) addError(errors, "payment_method_id", SCHEDULE_MESSAGES.paymentMethodDeleted);
    const id = customerId?.trim() || pm?.customer_id;
    if (!id) {
      if (!paymentMethodId) addError(errors, "customer_id", SCHEDULE_MESSAGES.customerOrPaymentMethod);
      return undefined;
    }
    const customer = await this.customers.findRow(ex, merchantId, id);
    if (!customer) addError(errors, "customer_id", MESSAGES.customerNotFound);
    else if (customer.deleted_at) addError(errors, "customer_id", SCHEDULE_MESSAGES.customerDeleted);
    else if (pm && pm.customer_id !== id)
      addError(errors, "payment_method_id", SCHEDULE_MESSAGES.paymentMethodOtherCustomer);
    return id;
  }

  /** POST /invoice/schedule: checks everything, then stores the schedule; emits create_scheduled_invoice. */
  async create(merchantId: string, input: InvoiceScheduleBody): Promise<InvoiceSchedule> {
    return this.db.transaction(async (tx) => {
      // Whole seconds, as timestamps are: a rule starting now (no DTSTART) has its first occurrence now.
      const now = new Date(Math.floor(this.clock.now(merchantId).getTime() / 1000) * 1000);
      const errors = validateMeta(input.meta);
      const total = parseTotalCents(input.total);
      if ("error" in total) addError(errors, "total", total.error);
      const rule = parseRule(input.rule, now);
      if ("error" in rule) addError(errors, "rule", rule.error);
      const customerId = await this.checkParties(tx, merchantId, input.customer_id, input.payment_method_id, errors);
      // Catalog items as line items: priced from the catalog, and the total must be theirs.
      const priced = await priceLineItems(tx, merchantId, input.meta, errors);
      if (priced) checkLineItemsTotal(priced, "cents" in total ? total.cents : undefined, errors);
      assertValid(errors);
      const id = crypto.randomUUID();
      const stamp = formatTimestamp(now);
      const parsed = rule as Exclude<typeof rule, { error: string }>;
      await repo.insertSchedule(tx, {
        id,
        merchant_id: merchantId,
        customer_id: customerId!,
        payment_method_id: input.payment_method_id ?? null,
        rule: parsed.text,
        active: 1,
        total_cents: (total as { cents: number }).cents,
        meta: JSON.stringify(priced?.meta ?? input.meta ?? {}),
        url: input.url?.trim() || defaultInvoiceUrl(this.publicUrl()),
        email_notification: input.email_notification === false ? 0 : 1,
        files: JSON.stringify(input.files ?? []),
        next_run_at: occurrenceFrom(parsed.rrule, now),
        created_at: stamp,
        updated_at: stamp,
      });
      const record = await this.get(merchantId, id, tx);
      await this.events.emit(tx, { merchantId, name: "create_scheduled_invoice", record });
      return record;
    });
  }

  /**
   * The schedule a recurring payment link's approved payment starts for the payer, in the
   * payment's unit of work: the payer's customer and payment method, the amount paid, the link's
   * invoice meta, and the link's rule from now (DTSTART = the payment). That payment was the
   * rule's first occurrence, so the schedule's first run is the one after it (a COUNT counts the
   * payment too). Emits create_scheduled_invoice.
   */
  async createForLink(
    tx: Executor,
    merchantId: string,
    input: {
      customerId: string;
      paymentMethodId: string;
      totalCents: number;
      meta: Record<string, unknown>;
      rule: string;
    },
  ): Promise<InvoiceSchedule> {
    const now = new Date(Math.floor(this.clock.now(merchantId).getTime() / 1000) * 1000);
    // Without DTSTART the rule starts now, written into the stored text.
    const rule = parseRule(input.rule, now);
    // The link's rule was checked when the link was stored, from an earlier now: it still parses.
    if ("error" in rule) throw new Error(`expected the link's rule to parse, got: ${rule.error}`);
    const id = crypto.randomUUID();
    const stamp = formatTimestamp(now);
    await repo.insertSchedule(tx, {
      id,
      merchant_id: merchantId,
      customer_id: input.customerId,
      payment_method_id: input.paymentMethodId,
      rule: rule.text,
      active: 1,
      total_cents: input.totalCents,
      meta: JSON.stringify(input.meta),
      url: defaultInvoiceUrl(this.publicUrl()),
      email_notification: 1,
      files: "[]",
      next_run_at: occurrenceAfter(rule.rrule, now),
      created_at: stamp,
      updated_at: stamp,
    });
    const record = await this.get(merchantId, id, tx);
    await this.events.emit(tx, { merchantId, name: "create_scheduled_invoice", record });
    return record;
  }

  /**
   * PUT /invoice/schedule/{id}: what is given changes. A new rule, or `active` turned back on,
   * starts again from the first occurrence to come (never one already run); paused, nothing runs.
   * Emits update_scheduled_invoice.
   */
  async update(merchantId: string, id: string, input: InvoiceScheduleUpdateBody): Promise<InvoiceSchedule> {
    return this.db.transaction(async (tx) => {
      const row = await repo.lockSchedule(tx, merchantId, id);
      if (!row) throw notFound("Invoice schedule");
      if (row.deleted_at) throw invalidState(SCHEDULE_MESSAGES.scheduleDeleted, { status: "DELETED" });
      const now = new Date(Math.floor(this.clock.now(merchantId).getTime() / 1000) * 1000);
      const errors = validateMeta(input.meta);
      const columns: repo.ScheduleEditColumns = { updated_at: formatTimestamp(now) };
      if (input.total !== undefined) {
        const total = parseTotalCents(input.total);
        if ("error" in total) addError(errors, "total", total.error);
        else columns.total_cents = total.cents;
      }
      let rrule = storedRule(row.rule);
      if (input.rule !== undefined) {
        const rule = parseRule(input.rule, now);
        if ("error" in rule) addError(errors, "rule", rule.error);
        else [columns.rule, rrule] = [rule.text, rule.rrule];
      }
      if (input.payment_method_id !== undefined) {
        await this.checkParties(tx, merchantId, row.customer_id, input.payment_method_id, errors);
        columns.payment_method_id = input.payment_method_id;
      }
      const meta = input.meta !== undefined ? input.meta : parseJson<unknown>(row.meta, {});
      const priced =
        input.meta !== undefined || input.total !== undefined
          ? await priceLineItems(tx, merchantId, meta, errors)
          : undefined;
      if (priced) checkLineItemsTotal(priced, columns.total_cents ?? Number(row.total_cents), errors);
      assertValid(errors);
      if (input.meta !== undefined) columns.meta = JSON.stringify(priced?.meta ?? input.meta);
      if (input.url !== undefined) columns.url = input.url.trim() || defaultInvoiceUrl(this.publicUrl());
      if (input.email_notification !== undefined) columns.email_notification = input.email_notification ? 1 : 0;
      if (input.files !== undefined) columns.files = JSON.stringify(input.files);
      if (input.active !== undefined) columns.active = input.active ? 1 : 0;
      const active = (columns.active ?? row.active) === 1;
      if (!active) columns.next_run_at = null;
      else if (input.rule !== undefined || row.active !== 1) {
        // From now on, and after the last occurrence run: an occurrence never runs twice.
        const last = row.last_run_at ? parseTimestamp(row.last_run_at).getTime() + 1000 : 0;
        columns.next_run_at = occurrenceFrom(rrule, new Date(Math.max(now.getTime(), last)));
      }
      await repo.editSchedule(tx, row.id, columns);
      const record = await this.get(merchantId, id, tx);
      await this.events.emit(tx, { merchantId, name: "update_scheduled_invoice", record });
      return record;
    });
  }

  /**
   * DELETE /invoice/schedule/{id}: soft delete (status DELETED, deleted_at set; no occurrence runs
   * again; the invoices it made stay). Emits delete_scheduled_invoice; a deleted one answers as it is.
   */
  async delete(merchantId: string, id: string): Promise<InvoiceSchedule> {
    return this.db.transaction(async (tx) => {
      const row = await repo.lockSchedule(tx, merchantId, id);
      if (!row) throw notFound("Invoice schedule");
      if (row.deleted_at) return this.toRecord(tx, row);
      await repo.softDeleteSchedule(tx, id, this.clock.timestamp(merchantId));
      const record = await this.get(merchantId, id, tx);
      await this.events.emit(tx, { merchantId, name: "delete_scheduled_invoice", record });
      return record;
    });
  }
}
