import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/payment-links";
import type { PaymentLinkFilters, PaymentLinkRow } from "../../storage/repositories/payment-links";
import type { SandboxClock } from "../clock";
import { parseJson } from "../../lib/json";
import { centsToNumber } from "../../domain/money";
import type { Listing, PageRequest } from "../../domain/pagination";
import { assertValid, invalidState, notFound } from "../../domain/errors";
import { addError, parseTotalCents, type AvsSettings, type FieldErrors } from "../../../packages/rules/validation";
import type {
  LinkInactiveReason,
  LinkPayBody,
  PaymentLinkBody,
  PaymentLinkRecord,
  PaymentLinkUpdateBody,
} from "../../domain/schemas/payment-links";
import type { InvoiceService } from "../invoices";
import { MESSAGES } from "../../../packages/rules/messages";
import type { PaymentMethod, PaymentMethodService } from "../payment-methods";
import type { InvoiceScheduleService } from "../invoice-schedules";
import { expiresAtOf, inactiveReason, LINK_MESSAGES, linkAmount, linkRecurrence, priceLinkMeta } from "./link-rules";

export type { PaymentLinkFilters, PaymentLinkRow };
export type PaymentLink = PaymentLinkRecord;

/** The hosted page of a link: the sandbox serves it at this address. */
export function hostedLinkUrl(publicUrl: string, id: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/hosted/link/${id}`;
}

/**
 * What a payment through a link opened: the invoice to pay and the amount the sale adds; for a
 * recurring link, what its schedule for the payer bills (the rule, without DTSTART).
 */
export interface OpenedPayment {
  linkId: string;
  invoiceId: string;
  totalCents: number;
  recurring: { rule: string; customerId: string; paymentMethodId: string; meta: Record<string, unknown> } | null;
}

/**
 * Payment links: a page the sandbox serves (tinyurl) where anyone with the link pays the merchant;
 * each payment is an invoice and its transaction. Expiry, uses and the active flag decide whether
 * it can be paid, on the merchant's sandbox clock. Vocabulary (docs/architecture.md, "Services"):
 * `get`, `find`, `list`, `create`, `update`, `delete`; the domain verbs `activity` (is-active),
 * `addSale` (update-stats), `openPayment` and `completePayment` (a payment through its page, in
 * the caller's unit of work: a recurring link's also starts a schedule for the payer),
 * `savePaymentMethod` (a tokenizeOnly link's page: the payment method kept, nothing charged);
 * `findHosted` (any merchant's, for its page), `toRecord`.
 */
export class PaymentLinkService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly invoices: InvoiceService,
    private readonly paymentMethods: PaymentMethodService,
    private readonly schedules: InvoiceScheduleService,
    private readonly publicUrl: () => string,
  ) {}

  toRecord(row: PaymentLinkRow): PaymentLink {
    const reason = inactiveReason(row, this.clock.timestamp(row.merchant_id));
    return {
      id: row.id,
      merchant_id: row.merchant_id,
      common_name: row.common_name,
      url: row.url,
      tinyurl: hostedLinkUrl(this.publicUrl(), row.id),
      link_meta: parseJson(row.link_meta, {}),
      active: row.active,
      amount: centsToNumber(Number(row.amount_cents)),
      expires_at: row.expires_at,
      max_uses: row.max_uses === null ? null : Number(row.max_uses),
      uses: Number(row.uses),
      is_active: reason === null,
      inactive_reason: reason,
      total_sales: centsToNumber(Number(row.total_sales_cents)),
      total_transactions: Number(row.total_transactions),
      created_at: row.created_at,
      updated_at: row.updated_at,
      deleted_at: row.deleted_at,
    };
  }

  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<PaymentLink> {
    return this.toRecord(await this.getRow(ex, merchantId, id));
  }

  /** The link's record, or undefined when the merchant has no live link with this id. */
  async find(merchantId: string, id: string, ex: Executor = this.db): Promise<PaymentLink | undefined> {
    const row = await repo.findLink(ex, merchantId, id);
    return row && this.toRecord(row);
  }

  private async getRow(ex: Executor, merchantId: string, id: string): Promise<PaymentLinkRow> {
    const row = await repo.findLink(ex, merchantId, id);
    if (!row) throw notFound("Payment link");
    return row;
  }

  private async lockRow(ex: Executor, merchantId: string, id: string): Promise<PaymentLinkRow> {
    const row = await repo.lockLink(ex, merchantId, id);
    if (!row) throw notFound("Payment link");
    return row;
  }

  /** A live link of any merchant by id (its hosted page), with its record. */
  async findHosted(id: string): Promise<{ row: PaymentLinkRow; record: PaymentLink } | undefined> {
    const row = await repo.locateLink(this.db, id);
    return row && { row, record: this.toRecord(row) };
  }

  async list(merchantId: string, filters: PaymentLinkFilters, page: PageRequest): Promise<Listing<PaymentLink>> {
    const { rows, total } = await repo.listLinks(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return { rows: rows.map((row) => this.toRecord(row)), total };
  }

  async create(merchantId: string, input: PaymentLinkBody): Promise<PaymentLink> {
    return this.db.transaction(async (tx) => {
      const id = crypto.randomUUID().replaceAll("-", "");
      const columns = await this.columns(tx, merchantId, id, undefined, input);
      await repo.insertLink(tx, {
        ...columns,
        id,
        merchant_id: merchantId,
        created_at: this.clock.timestamp(merchantId),
      });
      return this.get(merchantId, id, tx);
    });
  }

  /** PUT: the given fields change; `link_meta`, when given, replaces the stored one. */
  async update(merchantId: string, id: string, input: PaymentLinkUpdateBody): Promise<PaymentLink> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, merchantId, id);
      const columns = await this.columns(tx, merchantId, id, row, input);
      await repo.updateLink(tx, id, columns, this.clock.timestamp(merchantId));
      return this.get(merchantId, id, tx);
    });
  }

  async delete(merchantId: string, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, merchantId, id);
      await repo.softDeleteLink(tx, row.id, this.clock.timestamp(merchantId));
    });
  }

  /** GET …/is-active: whether the link can be paid now, and why not. */
  async activity(
    merchantId: string,
    id: string,
  ): Promise<{ id: string; is_active: boolean; reason: LinkInactiveReason | null }> {
    const record = await this.get(merchantId, id);
    return { id, is_active: record.is_active, reason: record.inactive_reason };
  }

  /**
   * PUT …/update-stats: a sale of `total` made through the link elsewhere (the integrator's own
   * page): a use, the amount in its total sales, one more transaction. A link that cannot be
   * paid now is a 422 invalid_state.
   */
  async addSale(
    merchantId: string,
    id: string,
    total: unknown,
  ): Promise<{ total: number; total_transactions: number }> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, merchantId, id);
      const parsed = parseTotalCents(total);
      if (total === undefined) assertValid({ total: [MESSAGES.required("total")] });
      if ("error" in parsed) assertValid({ total: [parsed.error] });
      this.assertPayable(row);
      await this.recordSale(tx, merchantId, row.id, (parsed as { cents: number }).cents);
      const after = this.toRecord(await this.getRow(tx, merchantId, id));
      return { total: after.total_sales, total_transactions: after.total_transactions };
    });
  }

  /**
   * A payment through the link's page, in the caller's unit of work: the link is locked until it
   * ends (two payments of a single-use link take turns; the second finds it used), checked, and
   * an invoice for its amount (or the customer's, on an editable link) made for the payment
   * method's customer, with the link's line items, memo and `payment_link_id` in its meta.
   */
  async openPayment(
    ex: Executor,
    merchantId: string,
    id: string,
    input: LinkPayBody,
    settings: AvsSettings,
  ): Promise<OpenedPayment> {
    const row = await this.lockRow(ex, merchantId, id);
    this.assertPayable(row);
    const stored = parseJson<Record<string, unknown>>(row.link_meta, {});
    if (stored.tokenizeOnly === true) throw invalidState(LINK_MESSAGES.tokenizeOnly, { reason: "tokenize_only" });
    const errors: FieldErrors = {};
    // The items are priced again: one deleted or switched off since makes the link unpayable.
    const { meta } = await priceLinkMeta(ex, merchantId, stored, errors);
    assertValid(errors);
    let totalCents = Number(row.amount_cents);
    if (stored.isTotalEditable === true) {
      const given = parseTotalCents(input.total);
      if ("error" in given) assertValid({ total: [given.error] });
      totalCents = (given as { cents: number }).cents;
    } else if (input.total !== undefined) {
      const given = parseTotalCents(input.total);
      if (!("cents" in given) || given.cents !== totalCents)
        addError(errors, "total", LINK_MESSAGES.totalFixed(centsToNumber(totalCents).toFixed(2)));
      assertValid(errors);
    }
    const invoiceMeta: Record<string, unknown> = { payment_link_id: row.id, reference: row.common_name };
    for (const key of ["memo", "lineItems", "subtotal", "tax", "shippingAmount", "update_inventory"]) {
      if (meta[key] !== undefined) invoiceMeta[key] = meta[key];
    }
    // The payment method's customer pays: its names and contact are already on file.
    const pm = await this.paymentMethods.chargeable(ex, merchantId, input.payment_method_id);
    const { row: invoice } = await this.invoices.createPublic(
      ex,
      merchantId,
      {
        payment_method_id: pm.id,
        customer_id: pm.customer_id,
        total: centsToNumber(totalCents).toFixed(2),
        meta: invoiceMeta,
        email: input.email,
        firstname: input.firstname,
        lastname: input.lastname,
        address_zip: input.address_zip,
        address_1: input.address_1,
        send_receipt: true,
      },
      settings,
      this.publicUrl(),
    );
    const rule = linkRecurrence(stored, this.clock.now(merchantId), {});
    return {
      linkId: row.id,
      invoiceId: invoice.id,
      totalCents,
      recurring: rule ? { rule, customerId: pm.customer_id, paymentMethodId: pm.id, meta: invoiceMeta } : null,
    };
  }

  /**
   * The link's page's payment was approved, in its unit of work: a sale of the link, and for a
   * recurring link the schedule that bills the payer from now on (create_scheduled_invoice).
   */
  async completePayment(ex: Executor, merchantId: string, opened: OpenedPayment): Promise<void> {
    await this.recordSale(ex, merchantId, opened.linkId, opened.totalCents);
    if (opened.recurring) {
      await this.schedules.createForLink(ex, merchantId, { ...opened.recurring, totalCents: opened.totalCents });
    }
  }

  /**
   * A tokenizeOnly link's page, in the caller's unit of work: the payment method its page
   * tokenized is kept for the payer, nothing is charged, no invoice is made; it counts as a use
   * of the link (not a sale). A link that charges, or cannot be used now, is a 422 invalid_state.
   */
  async savePaymentMethod(
    ex: Executor,
    merchantId: string,
    id: string,
    paymentMethodId: string,
  ): Promise<PaymentMethod> {
    const row = await this.lockRow(ex, merchantId, id);
    this.assertPayable(row);
    const stored = parseJson<Record<string, unknown>>(row.link_meta, {});
    if (stored.tokenizeOnly !== true) throw invalidState(LINK_MESSAGES.notTokenizeOnly, { reason: "charges" });
    const pm = await this.paymentMethods.chargeable(ex, merchantId, paymentMethodId);
    await repo.recordUse(ex, row.id, this.clock.timestamp(merchantId));
    return this.paymentMethods.toRecord(ex, pm);
  }

  /** One sale through the link (its page's approved payment, or update-stats), in the caller's unit of work. */
  async recordSale(ex: Executor, merchantId: string, id: string, totalCents: number): Promise<void> {
    await repo.recordSale(ex, id, totalCents, this.clock.timestamp(merchantId));
  }

  private assertPayable(row: PaymentLinkRow): void {
    const reason = inactiveReason(row, this.clock.timestamp(row.merchant_id));
    if (reason) throw invalidState(LINK_MESSAGES.notPayable(reason), { reason });
  }

  /** The columns of a create (no `row`) or an update, or a 422 naming every field that breaks a rule. */
  private async columns(
    ex: Executor,
    merchantId: string,
    id: string,
    row: PaymentLinkRow | undefined,
    input: PaymentLinkUpdateBody,
  ): Promise<repo.PaymentLinkColumns> {
    const errors: FieldErrors = {};
    const givenMeta = input.link_meta as Record<string, unknown> | undefined;
    const base = givenMeta ?? parseJson<Record<string, unknown>>(row?.link_meta ?? "{}", {});
    const { cents, meta } =
      givenMeta || !row ? await priceLinkMeta(ex, merchantId, base, errors) : { cents: undefined, meta: base };
    // A link that only saves a payment method charges nothing: it needs no amount.
    const amount = linkAmount(
      { amount: input.amount, total: givenMeta?.total },
      cents,
      meta.isTotalEditable === true || meta.tokenizeOnly === true,
      row ? Number(row.amount_cents) : undefined,
      errors,
    );
    if (givenMeta || !row) linkRecurrence(meta, this.clock.now(merchantId), errors);
    const name = input.common_name?.trim() ?? row?.common_name ?? "";
    if (name === "") addError(errors, "common_name", "The common_name field is required.");
    assertValid(errors);
    const active = input.active ?? givenMeta?.active;
    return {
      common_name: name,
      url: input.url ?? row?.url ?? `${this.publicUrl().replace(/\/+$/, "")}/hosted/link/`,
      link_meta: JSON.stringify({ ...meta, total: centsToNumber(amount), paymentLinkId: id }),
      amount_cents: amount,
      active: active === undefined ? (row?.active ?? 1) : active === true || active === 1 ? 1 : 0,
      expires_at: input.expires_at !== undefined ? expiresAtOf(input.expires_at) : (row?.expires_at ?? null),
      max_uses: input.max_uses !== undefined ? input.max_uses : row?.max_uses === undefined ? null : row.max_uses,
    };
  }
}
