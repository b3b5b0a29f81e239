import type { Database, Executor } from "../storage/database";
import * as repo from "../storage/repositories/payment-methods";
import { customersByIds } from "../storage/repositories/customers";
import type { Listing, PageRequest } from "../domain/pagination";
import type { PaymentMethodRow } from "../storage/repositories/payment-methods";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import { hmacHex } from "../lib/crypto";
import { detectBrand, digitsOnly } from "../../packages/rules/card-rules";
import { MESSAGES } from "../../packages/rules/messages";
import {
  addError,
  CUSTOMER_FIELDS,
  validateAvs,
  validateCardExp,
  validateTokenizeInput,
  type FieldErrors,
} from "../../packages/rules/validation";
import { formatTimestamp } from "../domain/time";
import { achReturnOf, bankOutcome, findTestCard, type Outcome } from "../../packages/rules/test-data";
import { binTypeOf, type BinType } from "../domain/surcharge";
import { cvvCheck } from "../../packages/rules/checks";
import { customerRecord, type CustomerInput, type CustomerRow, type CustomerService } from "./customers";
import { ApiError, assertValid, invalidState, notFound } from "../domain/errors";
import type { PaymentMethodRecord } from "../domain/schemas/records";
import type { MerchantRow } from "./merchants";
import { settingsOf } from "./merchants";

export type { PaymentMethodRow };

/** The row, or the 404 / 422 that says why it cannot be charged. */
function assertChargeable<T extends PaymentMethodRow>(row: T | undefined): T {
  // Like a path id, a referenced record of another merchant is indistinguishable from none.
  if (!row) throw new ApiError("not_found", "Payment method not found.", { param: "payment_method_id" });
  if (row.deleted_at) throw invalidState("The payment method was deleted and can no longer be charged.");
  return row;
}

/** The payment method record: everything but the number, which the sandbox never keeps. */
export type PaymentMethod = typeof PaymentMethodRecord.static;

/** The body of POST /webpayment/{token}/tokenize (docs/contract.md §5; docs/mobile.md). */
export interface TokenizeInput extends CustomerInput {
  method?: string;
  customer_id?: string;
  person_name?: string;
  card_number?: string;
  card_cvv?: string;
  card_exp?: string;
  bank_account?: string;
  bank_routing?: string;
  bank_type?: string;
  bank_holder_type?: string;
  bank_name?: string;
}

/** "Ada King Lovelace" → firstname "Ada", lastname "King Lovelace". */
function splitName(personName: string): { firstname: string; lastname: string } {
  const parts = personName.trim().split(/\s+/);
  return { firstname: parts[0] ?? "", lastname: parts.slice(1).join(" ") };
}

/** What PUT /payment-method/{id} may change; a field left out keeps its value. */
export type PaymentMethodUpdate = Partial<{
  person_name: string;
  nickname: string;
  card_exp: string;
  address_zip: string | null;
  address_1: string | null;
  bank_name: string | null;
  bank_type: "checking" | "savings";
  bank_holder_type: "personal" | "business";
}>;

/**
 * Payment methods: a card or bank account tokenized (the number never kept). Vocabulary
 * (docs/architecture.md, "Services"): `get` (the record by id, or a 404), `listForCustomer` (every
 * one of a customer, no page), `list` (a page of the merchant's), `create` (tokenize and answer the record), `update`, `delete`; the domain
 * verbs `tokenize` and `chargeable`/`chargeableWithCustomer` (the row, or why it cannot be
 * charged); `getRow`, `findRow` (the stored row) and the record builder `toRecord`.
 */
export class PaymentMethodService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly customers: CustomerService,
    /** Key of the card fingerprints, one per database. */
    private readonly fingerprintKey: string,
    private readonly events: EventBus<Executor>,
  ) {}

  /** GET /payment-method/{id}: the record, with its customer, or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<PaymentMethod> {
    return this.toRecord(ex, await this.getRow(ex, merchantId, id));
  }

  /** The stored row (deleted ones included), or a 404. */
  async getRow(ex: Executor, merchantId: string, id: string): Promise<PaymentMethodRow> {
    const row = await this.findRow(ex, merchantId, id);
    if (!row) throw notFound("Payment method");
    return row;
  }

  /** The stored row (deleted ones included), or undefined. */
  findRow(ex: Executor, merchantId: string, id: string): Promise<PaymentMethodRow | undefined> {
    return repo.findPaymentMethod(ex, merchantId, id);
  }

  /** The record of a row, with its customer (read in `ex`, or given when the caller has it). */
  async toRecord(ex: Executor, row: PaymentMethodRow, customer?: CustomerRow): Promise<PaymentMethod> {
    return paymentMethodRecord(row, customer ?? (await this.customers.getRow(ex, row.merchant_id, row.customer_id)));
  }

  async listForCustomer(merchantId: string, customerId: string): Promise<PaymentMethod[]> {
    const customer = await this.customers.getRow(this.db, merchantId, customerId);
    const rows = await repo.listCustomerPaymentMethods(this.db, merchantId, customerId);
    return rows.map((row) => paymentMethodRecord(row, customer));
  }

  /** GET /payment-method: the merchant's live payment methods, newest first (customers read in one query). */
  async list(
    merchantId: string,
    filters: repo.PaymentMethodFilters,
    page: PageRequest,
  ): Promise<Listing<PaymentMethod>> {
    const { rows, total } = await repo.listPaymentMethods(this.db, merchantId, filters, page.perPage, page.offset);
    const customers = await customersByIds(
      this.db,
      rows.map((row) => row.customer_id),
    );
    return { rows: rows.map((row) => paymentMethodRecord(row, customers.get(row.customer_id)!)), total };
  }

  /**
   * PUT /payment-method/{id}: the holder's name, nickname, address, a card's expiry (MMYY, not in
   * the past) or a bank account's name and types. Never the number: the sandbox does not keep it.
   * A deleted payment method cannot change. Emits update_payment_method.
   */
  async update(merchantId: string, id: string, changes: PaymentMethodUpdate): Promise<PaymentMethod> {
    return this.db.transaction(async (tx) => {
      const row = await this.getRow(tx, merchantId, id);
      if (row.deleted_at) throw invalidState("The payment method was deleted and can no longer change.");
      const errors: FieldErrors = {};
      const now = this.clock.now(merchantId);
      if (changes.card_exp !== undefined) {
        if (row.method !== "card") addError(errors, "card_exp", "Only a card has an expiry.");
        else validateCardExp({ card_exp: changes.card_exp }, now, errors);
      }
      for (const field of ["bank_name", "bank_type", "bank_holder_type"] as const) {
        if (changes[field] !== undefined && row.method !== "bank")
          addError(errors, field, `Only a bank account has a ${field}.`);
      }
      if (changes.person_name !== undefined && changes.person_name.trim() === "")
        addError(errors, "person_name", MESSAGES.required("person_name"));
      assertValid(errors);
      const pick = <K extends keyof repo.PaymentMethodChanges>(key: K) =>
        (changes[key] === undefined ? row[key] : changes[key]) as repo.PaymentMethodChanges[K];
      await repo.updatePaymentMethod(
        tx,
        row.id,
        {
          person_name: pick("person_name").trim(),
          nickname: pick("nickname"),
          card_exp: pick("card_exp"),
          address_zip: pick("address_zip"),
          address_1: pick("address_1"),
          bank_name: pick("bank_name"),
          bank_type: pick("bank_type"),
          bank_holder_type: pick("bank_holder_type"),
        },
        this.clock.timestamp(merchantId),
      );
      const record = await this.toRecord(tx, await this.getRow(tx, merchantId, id));
      await this.events.emit(tx, { merchantId, name: "update_payment_method", record });
      return record;
    });
  }

  /** Soft delete: it stays readable but can no longer be charged. */
  async delete(merchantId: string, id: string): Promise<PaymentMethod> {
    return this.db.transaction(async (tx) => {
      const row = await this.getRow(tx, merchantId, id);
      if (!row.deleted_at) {
        const now = this.clock.timestamp(merchantId);
        await repo.softDeletePaymentMethod(tx, id, now);
      }
      return this.toRecord(tx, await this.getRow(tx, merchantId, id));
    });
  }

  /** A payment method that can be charged now: not deleted (a card's expiry is the charge's to check). */
  async chargeable(ex: Executor, merchantId: string, id: string): Promise<PaymentMethodRow> {
    return assertChargeable(await repo.findPaymentMethod(ex, merchantId, id));
  }

  /**
   * As chargeable(), with the customer: a charge's record needs both, and whether an outcome
   * sequence is armed for the card. One statement on PostgreSQL, two seeks on SQLite
   * (repo.findChargeableWithCustomer).
   */
  async chargeableWithCustomer(
    ex: Executor,
    merchantId: string,
    id: string,
  ): Promise<{ pm: repo.ChargeablePaymentMethodRow; customer: CustomerRow }> {
    const { pm: found, customer } = await repo.findChargeableWithCustomer(ex, merchantId, id);
    const pm = assertChargeable(found);
    if (!customer) throw notFound("Customer");
    return { pm, customer };
  }

  /**
   * Validates a tokenize request: the shared client-checkable rules, then what only the server
   * knows (the customer exists, the merchant's AVS settings, the sandbox's test data). Returns
   * the processor outcome the payment method will have; throws the 422 with every failed field.
   */
  private async validate(
    ex: Executor,
    merchant: MerchantRow,
    input: TokenizeInput,
    now: Date,
  ): Promise<{ outcome: Outcome; binType: BinType | null }> {
    const raw = input as Record<string, unknown>;
    const errors = validateTokenizeInput(raw, now);
    if (typeof input.customer_id === "string" && input.customer_id !== "") {
      if (!(await this.customers.findRow(ex, merchant.id, input.customer_id)))
        addError(errors, "customer_id", MESSAGES.customerNotFound);
    }
    validateAvs(raw, settingsOf(merchant), errors);
    let outcome: Outcome | undefined;
    let binType: BinType | null = null;
    if (input.method === "card" && !errors.card_number) {
      const card = findTestCard(digitsOnly(input.card_number!));
      outcome = card?.outcome;
      if (card) binType = binTypeOf(card.funding);
      else addError(errors, "card_number", MESSAGES.cardNumberNotTest);
    } else if (input.method === "bank" && !errors.bank_routing && !errors.bank_account) {
      outcome = bankOutcome(input.bank_routing!, input.bank_account!);
      if (!outcome) addError(errors, "bank_routing", MESSAGES.routingNotTest);
    }
    assertValid(errors);
    return { outcome: outcome!, binType };
  }

  /**
   * Tokenizes a card or bank account for a merchant: validates, creates or matches the
   * customer (or uses the given one), and stores the payment method without the number or CVV,
   * in the caller's unit of work.
   */
  async tokenize(ex: Executor, merchant: MerchantRow, input: TokenizeInput): Promise<PaymentMethodRow> {
    return (await this.store(ex, merchant, input)).row;
  }

  /** tokenize(), with the customer it matched or made (undefined: the caller named one, not read here). */
  private async store(
    ex: Executor,
    merchant: MerchantRow,
    input: TokenizeInput,
  ): Promise<{ row: PaymentMethodRow; customer?: CustomerRow }> {
    const now = this.clock.now(merchant.id);
    const { outcome, binType } = await this.validate(ex, merchant, input, now);
    const personName = input.person_name!.trim();
    let customerId: string;
    let customer: CustomerRow | undefined;
    if (input.customer_id) {
      customerId = input.customer_id;
    } else {
      const fields: CustomerInput = {};
      for (const field of CUSTOMER_FIELDS) if (typeof input[field] === "string") fields[field] = input[field];
      const names = splitName(personName);
      fields.firstname = fields.firstname?.trim() || names.firstname;
      fields.lastname = fields.lastname?.trim() || names.lastname;
      customer = await this.customers.matchOrInsert(ex, merchant.id, fields);
      customerId = customer.id;
    }
    const id = crypto.randomUUID();
    const timestamp = this.clock.timestamp(merchant.id);
    const isCard = input.method === "card";
    const digits = isCard ? digitsOnly(input.card_number!) : input.bank_account!;
    // The fingerprint tells the same card apart without being reversible to the number.
    const fingerprint = hmacHex(
      this.fingerprintKey,
      `${input.method}:${isCard ? "" : input.bank_routing}:${digits}`,
    ).slice(0, 32);
    const row = await repo.insertPaymentMethod(ex, {
      id,
      merchant_id: merchant.id,
      customer_id: customerId,
      method: input.method as "card" | "bank",
      person_name: personName,
      card_type: isCard ? detectBrand(digits) : null,
      bin_type: binType,
      card_last_four: isCard ? digits.slice(-4) : null,
      card_exp: isCard ? input.card_exp! : null,
      bank_name: isCard ? null : (input.bank_name ?? ""),
      bank_type: isCard ? null : input.bank_type!,
      bank_holder_type: isCard ? null : input.bank_holder_type!,
      bank_last_four: isCard ? null : digits.slice(-4),
      bank_routing: isCard ? null : input.bank_routing!,
      address_zip: input.address_zip ?? null,
      address_1: input.address_1 ?? null,
      has_cvv: isCard && input.card_cvv ? 1 : 0,
      // The CVV is checked here, where it is seen once: only the result is kept.
      cvv_result: isCard ? cvvCheck(input.card_cvv) : null,
      fingerprint,
      outcome,
      ...laterEvents(input, digits, now),
      created_at: timestamp,
      updated_at: timestamp,
    });
    return { row, customer };
  }

  /**
   * Tokenizes in the caller's unit of work and answers the record (POST /payment-method, tokenize).
   * Emits create_payment_method with it (after the create_customer of a new customer).
   */
  async create(ex: Executor, merchant: MerchantRow, input: TokenizeInput): Promise<PaymentMethod> {
    // With the customer tokenize matched or made in this unit: not read again.
    const { row, customer } = await this.store(ex, merchant, input);
    const record = await this.toRecord(ex, row, customer);
    await this.events.emit(ex, { merchantId: merchant.id, name: "create_payment_method", record });
    return record;
  }
}

/**
 * What a documented test card or account does later on the clock (packages/rules/test-data.ts):
 * a returning account's ACH return code and days; a disputed card's reason and days; a card's
 * update, due at the first midnight `days` days after now, and what it changes to. Only the last four digits of a new number are kept.
 */
function laterEvents(input: TokenizeInput, digits: string, now: Date) {
  const none = {
    ach_return_code: null,
    ach_return_days: null,
    card_update_at: null,
    card_update: null,
    dispute_reason: null,
    dispute_days: null,
  };
  if (input.method !== "card") {
    const achReturn = achReturnOf(input.bank_routing!, digits);
    return achReturn ? { ...none, ach_return_code: achReturn.code, ach_return_days: achReturn.businessDays } : none;
  }
  const card = findTestCard(digits);
  if (card?.dispute) return { ...none, dispute_reason: card.dispute.reason, dispute_days: card.dispute.days };
  const update = card?.update;
  if (!update) return none;
  const exp = input.card_exp!;
  const year = (Number(exp.slice(2)) + (update.expiryYears ?? 0)) % 100;
  const change = {
    card_exp: update.expiryYears ? `${exp.slice(0, 2)}${String(year).padStart(2, "0")}` : exp,
    card_last_four: update.lastFour ?? digits.slice(-4),
  };
  const at = (Math.floor(now.getTime() / DAY_MS) + update.days) * DAY_MS;
  return { ...none, card_update_at: formatTimestamp(new Date(at)), card_update: JSON.stringify(change) };
}

const DAY_MS = 86_400_000;

/** The payment method record: everything but the number, which the sandbox never keeps. */
export function paymentMethodRecord(row: PaymentMethodRow, customer: CustomerRow): PaymentMethod {
  return {
    id: row.id,
    customer_id: row.customer_id,
    merchant_id: row.merchant_id,
    method: row.method,
    person_name: row.person_name,
    nickname: row.nickname,
    has_cvv: row.has_cvv === 1,
    card_type: row.card_type,
    bin_type: row.bin_type,
    card_last_four: row.card_last_four,
    card_exp: row.card_exp,
    bank_name: row.bank_name,
    bank_type: row.bank_type,
    bank_holder_type: row.bank_holder_type,
    bank_last_four: row.bank_last_four,
    address_zip: row.address_zip,
    address_1: row.address_1,
    fingerprint: row.fingerprint,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
    customer: customerRecord(customer),
  };
}
