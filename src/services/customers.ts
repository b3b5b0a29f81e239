import type { Database, Executor } from "../storage/database";
import { holdUntilCommit } from "../storage/repositories/locks";
import * as repo from "../storage/repositories/customers";
import type { CustomerColumns, CustomerRow } from "../storage/repositories/customers";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import { parseJson } from "../lib/json";
import type { Listing, PageRequest } from "../domain/pagination";
import { addError, validateCustomerFields, type FieldErrors, CUSTOMER_FIELDS } from "../../packages/rules/validation";
import { assertValid, notFound } from "../domain/errors";
import type { CustomerRecord } from "../domain/schemas/records";

export type { CustomerRow };

/** The customer record of docs/contract.md §6: the type of its schema. */
export type Customer = typeof CustomerRecord.static;

/** The writable customer fields (POST/PUT /customer, and the customer part of tokenize). */
export interface CustomerInput {
  firstname?: string;
  lastname?: string;
  company?: string;
  email?: string;
  phone?: string;
  address_1?: string;
  address_2?: string;
  address_city?: string;
  address_state?: string;
  address_zip?: string;
  address_country?: string;
  reference?: string;
  notes?: string | null;
  options?: Record<string, unknown> | null;
  cc_emails?: string[] | null;
  cc_sms?: string[] | null;
  allow_invoice_credit_card_payments?: boolean;
}

const TEXT_FIELDS = [...CUSTOMER_FIELDS, "reference"] as const;

export function customerRecord(row: CustomerRow): Customer {
  return {
    id: row.id,
    firstname: row.firstname,
    lastname: row.lastname,
    company: row.company,
    email: row.email,
    phone: row.phone,
    address_1: row.address_1,
    address_2: row.address_2,
    address_city: row.address_city,
    address_state: row.address_state,
    address_zip: row.address_zip,
    address_country: row.address_country,
    reference: row.reference,
    notes: row.notes,
    options: parseJson(row.options, null),
    cc_emails: parseJson(row.cc_emails, null),
    cc_sms: parseJson(row.cc_sms, null),
    allow_invoice_credit_card_payments: row.allow_invoice_credit_card_payments === 1,
    gravatar: row.gravatar === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
  };
}

/** The tokenize match rule: same e-mail, first and last name, ignoring case. */
export function matchKey(email: string, firstname: string, lastname: string): string {
  return [email, firstname, lastname].map((part) => part.trim().toLowerCase()).join("|");
}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * Customers: made by POST /customer or by tokenize (matched by e-mail and name). Vocabulary
 * (docs/architecture.md, "Services"): `get` (the record by id, or a 404), `find` (the record, or
 * undefined), `list` (a page), `create`, `update`, `delete`; `validateForCreate`, `insert` and
 * `matchOrInsert` for tokenize's unit of work; `getRow`, `findRow` (the stored row).
 */
export class CustomerService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus<Executor>,
  ) {}

  /** GET /customer/{id}: the customer's record (deleted ones too), or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<Customer> {
    return customerRecord(await this.getRow(ex, merchantId, id));
  }

  /** The customer's record, or undefined when the merchant has none with this id. */
  async find(merchantId: string, id: string, ex: Executor = this.db): Promise<Customer | undefined> {
    const row = await this.findRow(ex, merchantId, id);
    return row && customerRecord(row);
  }

  /** The stored row (deleted ones included), or a 404 for a customer of another merchant or none. */
  async getRow(ex: Executor, merchantId: string, id: string): Promise<CustomerRow> {
    const row = await this.findRow(ex, merchantId, id);
    if (!row) throw notFound("Customer");
    return row;
  }

  /** The stored row (deleted ones included), or undefined. */
  findRow(ex: Executor, merchantId: string, id: string): Promise<CustomerRow | undefined> {
    return repo.findCustomer(ex, merchantId, id);
  }

  async list(merchantId: string, filters: { keywords?: string }, page: PageRequest): Promise<Listing<Customer>> {
    const { rows, total } = await repo.listCustomers(
      this.db,
      merchantId,
      { limit: page.perPage, offset: page.offset },
      filters.keywords,
    );
    return { rows: rows.map(customerRecord), total };
  }

  /** Validates the fields of POST /customer: at least a name, company or e-mail. */
  validateForCreate(input: CustomerInput): FieldErrors {
    const errors = validateCustomerFields(input as Record<string, unknown>, {
      requireNames: false,
      requireContact: false,
    });
    if (![input.firstname, input.lastname, input.company, input.email].some((v) => v && v.trim() !== "")) {
      addError(errors, "firstname", "A customer needs at least a firstname, lastname, company or email.");
    }
    return errors;
  }

  /** Inserts a customer (already validated) and emits create_customer, in the caller's unit of work. */
  async insert(ex: Executor, merchantId: string, input: CustomerInput): Promise<CustomerRow> {
    const id = crypto.randomUUID();
    const now = this.clock.timestamp(merchantId);
    const text = (field: (typeof TEXT_FIELDS)[number]) => (input[field] ?? "").trim();
    await repo.insertCustomer(ex, {
      id,
      merchant_id: merchantId,
      ...columnsOf((field) => text(field)),
      notes: input.notes ?? null,
      options: json(input.options),
      cc_emails: json(input.cc_emails),
      cc_sms: json(input.cc_sms),
      allow_invoice_credit_card_payments: input.allow_invoice_credit_card_payments === false ? 0 : 1,
      match_key: matchKey(text("email"), text("firstname"), text("lastname")),
      created_at: now,
      updated_at: now,
    });
    const row = (await this.findRow(ex, merchantId, id))!;
    await this.events.emit(ex, { merchantId, name: "create_customer", record: customerRecord(row) });
    return row;
  }

  async create(merchantId: string, input: CustomerInput): Promise<Customer> {
    assertValid(this.validateForCreate(input));
    return customerRecord(await this.db.transaction((tx) => this.insert(tx, merchantId, input)));
  }

  /**
   * The customer tokenize attaches a payment method to: an existing one with the same e-mail
   * and names (case-insensitive), or a new one; in the caller's unit of work.
   */
  async matchOrInsert(ex: Executor, merchantId: string, input: CustomerInput): Promise<CustomerRow> {
    const email = (input.email ?? "").trim();
    if (email !== "") {
      const key = matchKey(email, input.firstname ?? "", input.lastname ?? "");
      // A known person needs no turn (a committed customer stays the oldest match), so tokenizes of
      // one person do not queue behind each other; only a new person's are made to take turns.
      const known = await repo.findCustomerByMatchKey(ex, merchantId, key);
      if (known) return known;
      // Two tokenizes of one new person at once: the second waits and finds the first's customer.
      if (await holdUntilCommit(ex, "customer-match", merchantId, key)) {
        const existing = await repo.findCustomerByMatchKey(ex, merchantId, key);
        if (existing) return existing;
      }
    }
    return this.insert(ex, merchantId, input);
  }

  async update(merchantId: string, id: string, input: CustomerInput): Promise<Customer> {
    const errors = validateCustomerFields(input as Record<string, unknown>, {
      requireNames: false,
      requireContact: false,
    });
    assertValid(errors);
    return this.db.transaction(async (tx) => {
      const current = await this.getRow(tx, merchantId, id);
      if (current.deleted_at) throw notFound("Customer");
      const next: CustomerColumns = { ...current };
      for (const field of TEXT_FIELDS) if (input[field] !== undefined) next[field] = input[field]!.trim();
      if (input.notes !== undefined) next.notes = input.notes;
      for (const field of ["options", "cc_emails", "cc_sms"] as const) {
        if (input[field] !== undefined) next[field] = json(input[field]);
      }
      if (input.allow_invoice_credit_card_payments !== undefined) {
        next.allow_invoice_credit_card_payments = input.allow_invoice_credit_card_payments ? 1 : 0;
      }
      next.match_key = matchKey(next.email, next.firstname, next.lastname);
      next.updated_at = this.clock.timestamp(merchantId);
      await repo.updateCustomer(tx, id, next);
      const record = customerRecord(await this.getRow(tx, merchantId, id));
      await this.events.emit(tx, { merchantId, name: "update_customer", record });
      return record;
    });
  }

  /** Soft delete: the record stays readable with deleted_at set, and leaves lists and matching. */
  async delete(merchantId: string, id: string): Promise<Customer> {
    return this.db.transaction(async (tx) => {
      const current = await this.getRow(tx, merchantId, id);
      if (current.deleted_at) return customerRecord(current);
      const now = this.clock.timestamp(merchantId);
      await repo.softDeleteCustomer(tx, id, now);
      const record = customerRecord(await this.getRow(tx, merchantId, id));
      await this.events.emit(tx, { merchantId, name: "update_customer", record });
      return record;
    });
  }
}

/** The text columns, each from `text`. */
function columnsOf(text: (field: (typeof TEXT_FIELDS)[number]) => string) {
  const columns = {} as Record<(typeof TEXT_FIELDS)[number], string>;
  for (const field of TEXT_FIELDS) columns[field] = text(field);
  return columns;
}
