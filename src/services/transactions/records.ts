/**
 * The transaction record of docs/contract.md §6, built from a row and its parts: its payment
 * method, customer and children. transactionRecords builds a page of them in three queries.
 */
import type { Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/transactions";
import type { TransactionRow } from "../../storage/repositories/transactions";
import { customersByIds } from "../../storage/repositories/customers";
import { paymentMethodsByIds } from "../../storage/repositories/payment-methods";
import { parseJson } from "../../lib/json";
import { centsToNumber } from "../../domain/money";
import { AVS_RESPONSES, avsResponse, cvvResponse } from "../../domain/gateway";
import type { TransactionRecord } from "../../domain/schemas/records";
import { DELETED_MEANWHILE, invalidState } from "../../domain/errors";
import { customerRecord, type CustomerRow } from "../customers";
import type { PaymentMethodRow } from "../payment-methods";

/** The transaction record of docs/contract.md §6: the type of its schema (children one level deep). */
export type Transaction = typeof TransactionRecord.static;

/** The money a top-level transaction moved: a charge's total, a pre_auth's captured amount. */
export function moneyCents(row: Pick<TransactionRow, "type" | "total_cents" | "captured_cents">): number {
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

/** What a record is built from besides its row. */
export interface RecordParts {
  pm: PaymentMethodRow;
  customer: CustomerRow;
  children: TransactionRow[];
}

/** The API record of a row from its parts; children are recorded with the payment methods and customers given. */
export function buildRecord(
  row: TransactionRow,
  parts: RecordParts,
  lookup: (child: TransactionRow) => RecordParts = () => ({ ...parts, children: [] }),
): Transaction {
  const { pm } = parts;
  const customer = customerRecord(parts.customer);
  const settled = row.settled_at !== null;
  // A card authorization's check results: the gateways' codes and the results (written out here,
  // not spread from a helper's object: one object fewer per record).
  const { avs_street_result: street, avs_zip_result: zip, cvv_result: cvv } = row;
  const avs = street !== null && zip !== null ? avsResponse(street, zip) : null;
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
      bin_type: pm.bin_type,
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
    surcharge: centsToNumber(row.surcharge_cents),
    last_four: row.last_four,
    auth_id: row.auth_id,
    issuer_auth_code: row.issuer_auth_code,
    message: row.message,
    decline_code: row.decline_code,
    avs_response: avs,
    avs_message: avs === null ? null : AVS_RESPONSES[avs],
    cvv_response: cvv === null ? null : cvvResponse(cvv),
    avs_street_result: street,
    avs_zip_result: zip,
    cvv_result: cvv,
    meta: parseJson(row.meta, {}),
    is_manual: row.is_manual === 1,
    is_merchant_present: row.is_merchant_present === 1,
    receipt_email_at: row.receipt_email_at,
    receipt_sms_at: row.receipt_sms_at,
    reference_id: row.reference_id,
    source: row.source,
    schedule_id: row.schedule_id,
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

/**
 * The API records of rows: their children, payment methods and customers in one query each, sent
 * together (one round trip on PostgreSQL). A child names its parent's payment method and customer
 * (a capture, void or refund of it), so those reads need not wait for the children's; one that names
 * another is read after them. `customers` holds customers the caller has read already (an
 * invoice's), which are not read again.
 */
export async function transactionRecords(
  ex: Executor,
  rows: readonly TransactionRow[],
  customers: ReadonlyMap<string, CustomerRow> = new Map(),
): Promise<Transaction[]> {
  if (rows.length === 0) return [];
  const customerOf = new Map(customers);
  const readCustomers = (of: readonly TransactionRow[]) => {
    const missing = of.map((row) => row.customer_id).filter((id) => !customerOf.has(id));
    return missing.length > 0 ? customersByIds(ex, missing) : new Map<string, CustomerRow>();
  };
  const readPms = (ids: readonly string[]) =>
    ids.length > 0 ? paymentMethodsByIds(ex, ids) : new Map<string, PaymentMethodRow>();
  const [children, pms, fetched] = await Promise.all([
    repo.childrenOf(
      ex,
      rows.map((row) => row.id),
    ),
    readPms(rows.map((row) => row.payment_method_id)),
    readCustomers(rows),
  ]);
  for (const [id, customer] of fetched) customerOf.set(id, customer);
  const kids = [...children.values()].flat();
  const [morePms, moreCustomers] = await Promise.all([
    readPms(kids.map((row) => row.payment_method_id).filter((id) => !pms.has(id))),
    readCustomers(kids),
  ]);
  for (const [id, pm] of morePms) pms.set(id, pm);
  for (const [id, customer] of moreCustomers) customerOf.set(id, customer);
  const partsOf = (row: TransactionRow): RecordParts => {
    const pm = pms.get(row.payment_method_id);
    const customer = customerOf.get(row.customer_id);
    // Both are only ever deleted with every transaction of the merchant (a reset): one that ran
    // between this read's statements.
    if (!pm || !customer) throw invalidState(DELETED_MEANWHILE);
    return { pm, customer, children: children.get(row.id) ?? [] };
  };
  return rows.map((row) => buildRecord(row, partsOf(row), partsOf));
}
