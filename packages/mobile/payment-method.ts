/**
 * What tokenize returns: the sandbox's payment method record exactly as it is on the wire
 * (snake_case), so its `id` and the record can be passed on to a backend unchanged.
 * tests/mobile/sdk.test.ts checks these keys against a real answer.
 */
import type { Customer } from "../payjs/types";

/** The customer the payment method belongs to (new, matched by email + names, or the given customerId). */
export type PaymentMethodCustomer = Customer;

/** A tokenized card or bank account: charge it from your backend with `POST /charge {payment_method_id}`. */
export interface PaymentMethod {
  /** The payment_method_id for `POST /charge` and the rest of the HTTP API. */
  id: string;
  customer_id: string;
  merchant_id: string;
  method: "card" | "bank";
  person_name: string;
  nickname: string;
  has_cvv: boolean;
  /** visa, mastercard, amex, discover, jcb, diners; null for banks. */
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
  /** Same card or account → same fingerprint, within one sandbox. */
  fingerprint: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  customer: PaymentMethodCustomer;
}
