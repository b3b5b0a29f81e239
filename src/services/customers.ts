import type { Database, Statement } from "bun:sqlite";
import type { SandboxClock } from "./clock";
import type { EventBus } from "../domain/events";
import { parseJson } from "../lib/json";
import { paginate, type Page, type PageRequest } from "../domain/pagination";
import { addError, validateCustomerFields, type FieldErrors, CUSTOMER_FIELDS } from "../../packages/rules/validation";
import { assertValid, notFound } from "../domain/errors";
import type { CustomerRecord } from "../domain/schemas/records";

export interface CustomerRow {
  id: string;
  merchant_id: string;
  firstname: string;
  lastname: string;
  company: string;
  email: string;
  phone: string;
  address_1: string;
  address_2: string;
  address_city: string;
  address_state: string;
  address_zip: string;
  address_country: string;
  reference: string;
  notes: string | null;
  options: string | null;
  cc_emails: string | null;
  cc_sms: string | null;
  allow_invoice_credit_card_payments: number;
  gravatar: number;
  match_key: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

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

export class CustomerService {
  /** Read by every transaction record: prepared once. */
  private readonly byId: Statement<CustomerRow, [string, string]>;

  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly events: EventBus,
  ) {
    this.byId = db.prepare("SELECT * FROM customers WHERE id = ? AND merchant_id = ?");
  }

  /** A customer of this merchant (deleted ones included), or null. */
  find(merchantId: string, id: string): CustomerRow | null {
    return this.byId.get(id, merchantId);
  }

  /** As find, but 404 for a customer of another merchant or none. */
  get(merchantId: string, id: string): CustomerRow {
    const row = this.find(merchantId, id);
    if (!row) throw notFound("Customer");
    return row;
  }

  record(merchantId: string, id: string): Customer {
    return customerRecord(this.get(merchantId, id));
  }

  list(merchantId: string, page: PageRequest, url: string, keywords?: string): Page<Customer> {
    const where = ["merchant_id = ?", "deleted_at IS NULL"];
    const params: string[] = [merchantId];
    if (keywords) {
      where.push("(firstname || ' ' || lastname || ' ' || email || ' ' || company || ' ' || phone) LIKE ? ESCAPE '\\'");
      params.push(`%${keywords.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    const clause = where.join(" AND ");
    const total = this.db
      .query<{ n: number }, string[]>(`SELECT COUNT(*) AS n FROM customers WHERE ${clause}`)
      .get(...params)!.n;
    const rows = this.db
      .query<CustomerRow, (string | number)[]>(
        `SELECT * FROM customers WHERE ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, page.perPage, page.offset);
    return paginate(rows.map(customerRecord), total, page, url);
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

  /** Inserts a customer (already validated) and emits create_customer. Call inside a transaction. */
  insert(merchantId: string, input: CustomerInput): CustomerRow {
    const id = crypto.randomUUID();
    const now = this.clock.timestamp(merchantId);
    const text = (field: (typeof TEXT_FIELDS)[number]) => (input[field] ?? "").trim();
    this.db
      .query(
        `INSERT INTO customers (id, merchant_id, firstname, lastname, company, email, phone, address_1, address_2,
           address_city, address_state, address_zip, address_country, reference, notes, options, cc_emails, cc_sms,
           allow_invoice_credit_card_payments, match_key, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        merchantId,
        ...TEXT_FIELDS.map(text),
        input.notes ?? null,
        json(input.options),
        json(input.cc_emails),
        json(input.cc_sms),
        input.allow_invoice_credit_card_payments === false ? 0 : 1,
        matchKey(text("email"), text("firstname"), text("lastname")),
        now,
        now,
      );
    const row = this.find(merchantId, id)!;
    this.events.emit({ merchantId, name: "create_customer", record: customerRecord(row) });
    return row;
  }

  create(merchantId: string, input: CustomerInput): Customer {
    assertValid(this.validateForCreate(input));
    return customerRecord(this.db.transaction(() => this.insert(merchantId, input)).immediate());
  }

  /**
   * The customer tokenize attaches a payment method to: an existing one with the same e-mail
   * and names (case-insensitive), or a new one. Call inside a transaction.
   */
  matchOrInsert(merchantId: string, input: CustomerInput): CustomerRow {
    const email = (input.email ?? "").trim();
    if (email !== "") {
      const existing = this.db
        .query<CustomerRow, [string, string]>(
          "SELECT * FROM customers WHERE merchant_id = ? AND match_key = ? AND deleted_at IS NULL ORDER BY created_at LIMIT 1",
        )
        .get(merchantId, matchKey(email, input.firstname ?? "", input.lastname ?? ""));
      if (existing) return existing;
    }
    return this.insert(merchantId, input);
  }

  update(merchantId: string, id: string, input: CustomerInput): Customer {
    const errors = validateCustomerFields(input as Record<string, unknown>, {
      requireNames: false,
      requireContact: false,
    });
    assertValid(errors);
    return this.db
      .transaction(() => {
        const current = this.get(merchantId, id);
        if (current.deleted_at) throw notFound("Customer");
        const next: Record<string, unknown> = { ...current };
        for (const field of TEXT_FIELDS) if (input[field] !== undefined) next[field] = input[field]!.trim();
        if (input.notes !== undefined) next.notes = input.notes;
        for (const field of ["options", "cc_emails", "cc_sms"] as const) {
          if (input[field] !== undefined) next[field] = json(input[field]);
        }
        if (input.allow_invoice_credit_card_payments !== undefined) {
          next.allow_invoice_credit_card_payments = input.allow_invoice_credit_card_payments ? 1 : 0;
        }
        next.match_key = matchKey(String(next.email), String(next.firstname), String(next.lastname));
        next.updated_at = this.clock.timestamp(merchantId);
        const columns = [
          ...TEXT_FIELDS,
          "notes",
          "options",
          "cc_emails",
          "cc_sms",
          "allow_invoice_credit_card_payments",
          "match_key",
          "updated_at",
        ];
        this.db
          .query(`UPDATE customers SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`)
          .run(...(columns.map((c) => next[c]) as (string | number | null)[]), id);
        const record = customerRecord(this.get(merchantId, id));
        this.events.emit({ merchantId, name: "update_customer", record });
        return record;
      })
      .immediate();
  }

  /** Soft delete: the record stays readable with deleted_at set, and leaves lists and matching. */
  delete(merchantId: string, id: string): Customer {
    return this.db
      .transaction(() => {
        const current = this.get(merchantId, id);
        if (current.deleted_at) return customerRecord(current);
        const now = this.clock.timestamp(merchantId);
        this.db.query("UPDATE customers SET deleted_at = ?, updated_at = ? WHERE id = ?").run(now, now, id);
        const record = customerRecord(this.get(merchantId, id));
        this.events.emit({ merchantId, name: "update_customer", record });
        return record;
      })
      .immediate();
  }
}
