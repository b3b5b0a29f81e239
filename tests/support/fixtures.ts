/**
 * What the browser suites pass to pay(), invoices and tokenize besides the card: customers with a
 * full address, and pay() details built from one. Each suite keeps its own person where a test
 * checks that person's name; the fields around it come from here.
 *
 * @example
 * ```ts
 * import { ADA, cardPayDetails } from "../support/fixtures";
 * await page.evaluate((d) => payjs.pay(d), cardPayDetails(ADA, { total: 12.5 }));
 * ```
 */
import { TEST_BANK } from "../../packages/rules/test-data";

/** A customer as pay() and POST /webpayment/{token}/invoice take one: names, contact and address. */
export interface Customer {
  firstname: string;
  lastname: string;
  email: string;
  phone: string;
  address_1: string;
  address_city: string;
  address_state: string;
  address_zip?: string;
}

/** The holder of the test Visa in support/app.ts: the customer most suites pay as. */
export const ADA = {
  firstname: "Ada",
  lastname: "Lovelace",
  email: "ada@example.com",
  phone: "5555550100",
  address_1: "1 Analytical Way",
  address_city: "London",
  address_state: "LN",
  address_zip: "32822",
} as const satisfies Customer;

/** A card expiry year `yearsAhead` from now, as pay()'s `year` takes it: a fixture never expires. */
export function expiryYear(yearsAhead: number): string {
  return String(new Date().getUTCFullYear() + yearsAhead);
}

/** pay() / tokenize() details of a card payment by `customer` (the number and CVV are in the frames). */
export function cardPayDetails(
  customer: Customer,
  extra: Record<string, unknown> = {},
  expiry: { month: string; yearsAhead: number } = { month: "12", yearsAhead: 3 },
): Record<string, unknown> {
  return { method: "card", month: expiry.month, year: expiryYear(expiry.yearsAhead), ...customer, ...extra };
}

/** pay() / tokenize() details of an ACH payment by `customer` from the approving test account. */
export function bankPayDetails(customer: Customer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    method: "bank",
    person_name: `${customer.firstname} ${customer.lastname}`,
    bank_routing: TEST_BANK.routing,
    bank_account: TEST_BANK.approvingAccount,
    bank_type: "checking",
    bank_holder_type: "personal",
    ...customer,
    ...extra,
  };
}
