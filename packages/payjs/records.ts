/**
 * The records payjs.js resolves with (the invoice of pay(), the payment method of tokenize(), and
 * what they carry), as the API answers them. Part of the public typings: GET /payjs.d.ts serves
 * this file with types.ts, as one file.
 */
import type { DeclineCode } from "../rules/codes";

/** What one of the issuer's checks (AVS street, AVS postal code, CVV) answered. */
export type CheckResult = "match" | "no_match" | "unavailable" | "not_provided";

export interface LineItem {
  item?: string;
  details?: string;
  quantity?: number;
  price?: number | string;
  [member: string]: unknown;
}

export interface CustomField {
  /** Required and unique. */
  id: string;
  name?: string;
  value?: string;
  /** Only "text". */
  type?: "text";
  visible?: boolean;
  [member: string]: unknown;
}

/** Free-form: these members are understood by receipts and invoices; any other member is kept as given. */
export interface InvoiceMeta {
  reference?: string;
  memo?: string;
  subtotal?: number | string;
  tax?: number | string;
  lineItems?: LineItem[];
  invoice_merchant_custom_fields?: CustomField[];
  [member: string]: unknown;
}

/** A timestamp "YYYY-MM-DD HH:MM:SS" (UTC). */
export type Timestamp = string;

export interface Customer {
  id: string;
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
  options: Record<string, unknown> | null;
  cc_emails: string[] | null;
  cc_sms: string[] | null;
  allow_invoice_credit_card_payments: boolean;
  gravatar: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface Transaction {
  id: string;
  parent_id: string | null;
  invoice_id: string;
  customer_id: string;
  payment_method_id: string;
  payment_method: {
    id: string;
    customer: Customer;
    method: string;
    card_type: string | null;
    bin_type: string | null;
    card_last_four: string | null;
    card_exp: string | null;
    bank_name: string | null;
    bank_type: string | null;
    person_name: string;
  };
  method: "card" | "bank";
  type: "charge" | "pre_auth" | "capture" | "void" | "refund";
  success: boolean;
  total: number;
  /** The part of total that is the merchant's credit card surcharge (a refund's: the share it returns); 0 for none. */
  surcharge: number;
  last_four: string;
  auth_id: string | null;
  issuer_auth_code: string | null;
  message: string | null;
  /** Why the processor declined (a DeclineCode), null on approval. */
  decline_code: DeclineCode | null;
  /** The AVS result code of a card authorization (Y, A, Z, B, P, N, U); null for banks and children. */
  avs_response: string | null;
  avs_message: string | null;
  /** The CVV result code (M, N, U, P: no CVV given); null for banks and children. */
  cvv_response: string | null;
  avs_street_result: CheckResult | null;
  avs_zip_result: CheckResult | null;
  cvv_result: CheckResult | null;
  meta: Record<string, unknown>;
  is_manual: boolean;
  is_merchant_present: boolean;
  receipt_email_at: Timestamp | null;
  receipt_sms_at: Timestamp | null;
  reference_id: string;
  source: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  pre_auth: boolean;
  is_captured: boolean;
  total_refunded: number;
  is_refundable: boolean;
  is_voidable: boolean;
  is_voided: boolean;
  batch_id: string | null;
  settled_at: Timestamp | null;
  child_transactions: Transaction[];
}

/** What tokenize() resolves with: the stored payment method (never the card number or CVV). */
export interface PaymentMethod {
  id: string;
  customer_id: string;
  merchant_id: string;
  method: "card" | "bank";
  person_name: string;
  nickname: string;
  has_cvv: boolean;
  card_type: string | null;
  /** How the card is funded: CREDIT, DEBIT or PREPAID (only credit cards are surcharged); null for banks. */
  bin_type: "CREDIT" | "DEBIT" | "PREPAID" | null;
  card_last_four: string | null;
  /** MMYY. */
  card_exp: string | null;
  bank_name: string | null;
  bank_type: string | null;
  bank_holder_type: string | null;
  bank_last_four: string | null;
  address_zip: string | null;
  address_1: string | null;
  /** The same card or account gives the same fingerprint. */
  fingerprint: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
  customer: Customer;
}

export type InvoiceStatus = "DRAFT" | "PAID" | "ATTEMPTED" | "PARTIALLY_REFUNDED" | "REFUNDED" | "VOIDED" | "DELETED";

/** What pay() resolves with (status PAID), and what a payment_declined PayJsError carries (status ATTEMPTED). */
export interface Invoice {
  id: string;
  customer_id: string;
  customer: Customer;
  /** The method that paid it; null until paid or attempted. */
  payment_method_id: string | null;
  /** pay()'s charge first. */
  child_transactions: Transaction[];
  status: InvoiceStatus;
  total: number;
  total_paid: number;
  balance_due: number;
  is_partial_payment_enabled: boolean;
  is_webpayment: boolean;
  is_merchant_present: boolean | null;
  payment_attempt_failed: boolean;
  /** The decline message of the last failed attempt, else empty. */
  payment_attempt_message: string;
  meta: InvoiceMeta;
  /** The hosted invoice address prefix; the invoice is at url + id. */
  url: string;
  schedule_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  invoice_date_at: Timestamp;
  paid_at: Timestamp | null;
  due_at: Timestamp | null;
  sent_at: Timestamp | null;
  viewed_at: Timestamp | null;
  deleted_at: Timestamp | null;
}
