/**
 * The iOS SDK's input objects, CreditCard and BankAccount, with its test helpers (docs/contract.md §8).
 * Properties are camelCase like the iOS SDK; `WIRE_NAMES` maps them to the tokenize wire's
 * snake_case fields (docs/mobile.md).
 */
import { describe } from "./errors";
import type { DeclineCode } from "../rules/codes";
import { DECLINE_REASONS, isDeclineCode } from "../rules/declines";
import { TEST_BANK, TEST_CARDS } from "../rules/test-data";
import { AVS_TEST_VALUES } from "../rules/checks";

/** The customer a payment method is tied to: a new or matched one from these fields, or `customerId`. */
export interface CustomerDetails {
  firstname?: string;
  lastname?: string;
  company?: string;
  email?: string;
  /** At least 10 characters when given. */
  phone?: string;
  address1?: string;
  address2?: string;
  addressCity?: string;
  /** Two-letter state code. */
  addressState?: string;
  /** Required by merchants with zip AVS (`avs_zip`). */
  addressZip?: string;
  /** Three-letter country code. */
  addressCountry?: string;
  /** An existing customer of the merchant: the payment method is attached to it and the fields above are ignored. */
  customerId?: string;
}

export interface CreditCardFields extends CustomerDetails {
  /** Name on the card, ≤ 50 characters. */
  personName: string;
  /** Digits; spaces and dashes are allowed. */
  cardNumber: string;
  /** Expiry as MMYY ("1230" is December 2030), not in the past. */
  cardExp: string;
  /** Optional: 3 digits, 4 for Amex. */
  cardCvv?: string;
  addressZip: string;
}

export interface BankAccountFields extends CustomerDetails {
  /** Account holder, ≤ 50 characters. */
  personName: string;
  /** `checking` or `savings`. */
  bankType: string;
  /** `personal` or `business`. */
  bankHolderType: string;
  /** Account number, 4 to 17 digits. */
  bankAccount: string;
  /** 9-digit ABA routing number. */
  bankRouting: string;
  bankName?: string;
  addressZip: string;
}

/** Every input property → its field on the tokenize wire. */
export const WIRE_NAMES = {
  personName: "person_name",
  cardNumber: "card_number",
  cardExp: "card_exp",
  cardCvv: "card_cvv",
  bankType: "bank_type",
  bankHolderType: "bank_holder_type",
  bankAccount: "bank_account",
  bankRouting: "bank_routing",
  bankName: "bank_name",
  firstname: "firstname",
  lastname: "lastname",
  company: "company",
  email: "email",
  phone: "phone",
  address1: "address_1",
  address2: "address_2",
  addressCity: "address_city",
  addressState: "address_state",
  addressZip: "address_zip",
  addressCountry: "address_country",
  customerId: "customer_id",
} as const;

export type InputProperty = keyof typeof WIRE_NAMES;

const CUSTOMER_PROPERTIES = [
  "firstname",
  "lastname",
  "company",
  "email",
  "phone",
  "address1",
  "address2",
  "addressCity",
  "addressState",
  "addressZip",
  "addressCountry",
  "customerId",
] as const satisfies readonly (keyof CustomerDetails)[];

const CARD_PROPERTIES = [
  "personName",
  "cardNumber",
  "cardExp",
  "cardCvv",
  ...CUSTOMER_PROPERTIES,
] as const satisfies readonly (keyof CreditCardFields)[];

const BANK_PROPERTIES = [
  "personName",
  "bankType",
  "bankHolderType",
  "bankAccount",
  "bankRouting",
  "bankName",
  ...CUSTOMER_PROPERTIES,
] as const satisfies readonly (keyof BankAccountFields)[];

const SNAKE_TO_PROPERTY: Record<string, string> = Object.fromEntries(
  Object.entries(WIRE_NAMES).map(([property, wire]) => [wire, property]),
);

/** The input property of a wire field ("card_number" → "cardNumber"); other names unchanged. */
export function propertyOf(wireField: string): string {
  return SNAKE_TO_PROPERTY[wireField] ?? wireField;
}

/** Copies the allowed properties, refusing misuse: unknown names and non-string values. */
function assign(target: object, kind: string, allowed: readonly string[], fields: unknown): void {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    throw new TypeError(`${kind}: expected an object of fields, got ${describe(fields)}`);
  }
  for (const [name, value] of Object.entries(fields)) {
    if (!allowed.includes(name)) {
      const hint = SNAKE_TO_PROPERTY[name] && allowed.includes(SNAKE_TO_PROPERTY[name]!);
      throw new TypeError(
        `${kind}: expected one of ${allowed.join(", ")}, got "${name}"` +
          (hint ? ` (did you mean ${SNAKE_TO_PROPERTY[name]}?)` : ""),
      );
    }
    if (value === undefined) continue;
    if (typeof value !== "string") {
      throw new TypeError(`${kind}: expected ${name} to be a string, got ${describe(value)}`);
    }
    (target as Record<string, string>)[name] = value;
  }
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/** "4111111111111111" → "•••• 1111": what may appear in a log. */
function lastFour(value: string): string {
  const digits = value.replace(/\D/g, "");
  return digits.length > 4 ? `•••• ${digits.slice(-4)}` : "••••";
}

/**
 * A card to tokenize. The number and CVV stay in memory until tokenize sends them straight to
 * the sandbox; `JSON.stringify` and `console.log` show only the last four digits.
 * @example
 * const card = new CreditCard({ personName: "Joan Parsnip", cardNumber: "4111111111111111", cardExp: "1230", addressZip: "32822" });
 */
export class CreditCard implements CreditCardFields {
  personName = "";
  cardNumber = "";
  cardExp = "";
  cardCvv?: string;
  addressZip = "";
  firstname?: string;
  lastname?: string;
  company?: string;
  email?: string;
  phone?: string;
  address1?: string;
  address2?: string;
  addressCity?: string;
  addressState?: string;
  addressCountry?: string;
  customerId?: string;

  constructor(fields: CreditCardFields) {
    assign(this, "CreditCard", CARD_PROPERTIES, fields);
  }

  /** The Visa test card that tokenizes and approves: 4111111111111111, exp 12/30, zip 32822. */
  static testCreditCard(): CreditCard {
    return new CreditCard({
      personName: "Joan Parsnip",
      cardNumber: "4111111111111111",
      cardExp: "1230",
      addressZip: "32822",
    });
  }

  /** A card that fails tokenization: its number fails the Luhn check. */
  static failingTestCreditCard(): CreditCard {
    return new CreditCard({
      personName: "Joan Parsnip",
      cardNumber: "4111111111111112",
      cardExp: "1230",
      addressZip: "32822",
    });
  }

  /**
   * A Visa test card that tokenizes and is then declined at charge with this reason
   * (docs/testing-failures.md): the reason's own card, or for `incorrect_zip` / `incorrect_address`
   * the approving card with the test postal code / street that fails AVS.
   * @example
   * const card = CreditCard.decliningTestCreditCard("insufficient_funds");
   */
  static decliningTestCreditCard(reason: DeclineCode = "decline"): CreditCard {
    if (!isDeclineCode(reason) || DECLINE_REASONS[reason].method !== "card") {
      throw new TypeError(`decliningTestCreditCard: expected a card decline code, got ${JSON.stringify(reason)}.`);
    }
    // A street too, so it tokenizes for merchants that check the street (avs_street).
    const fields = {
      personName: "Joan Parsnip",
      cardNumber: "4111111111111111",
      cardExp: "1230",
      addressZip: "32822",
      address1: "1 Main Street",
    };
    if (reason === "incorrect_zip") return new CreditCard({ ...fields, addressZip: AVS_TEST_VALUES.zipNoMatch });
    if (reason === "incorrect_address") return new CreditCard({ ...fields, address1: AVS_TEST_VALUES.streetNoMatch });
    const card = TEST_CARDS.find((entry) => entry.brand === "visa" && entry.outcome === reason)!;
    return new CreditCard({ ...fields, cardNumber: card.number });
  }

  /** The fields, with the number reduced to its last four and no CVV. */
  toJSON(): Record<string, string> {
    const shown: Record<string, string> = { ...(this as unknown as Record<string, string>) };
    shown.cardNumber = lastFour(this.cardNumber);
    if (this.cardCvv !== undefined) shown.cardCvv = "•••";
    return shown;
  }

  [INSPECT](): string {
    return `CreditCard ${JSON.stringify(this)}`;
  }
}

/**
 * A bank account (ACH) to tokenize. `JSON.stringify` and `console.log` show only the last
 * four digits of the account number.
 * @example
 * const bank = new BankAccount({ personName: "Joan Parsnip", bankType: "savings", bankHolderType: "personal",
 *   bankAccount: "9876543210", bankRouting: "021000021", addressZip: "32822" });
 */
export class BankAccount implements BankAccountFields {
  personName = "";
  bankType = "";
  bankHolderType = "";
  bankAccount = "";
  bankRouting = "";
  bankName?: string;
  addressZip = "";
  firstname?: string;
  lastname?: string;
  company?: string;
  email?: string;
  phone?: string;
  address1?: string;
  address2?: string;
  addressCity?: string;
  addressState?: string;
  addressCountry?: string;
  customerId?: string;

  constructor(fields: BankAccountFields) {
    assign(this, "BankAccount", BANK_PROPERTIES, fields);
  }

  /** The test account that tokenizes and approves: routing 021000021, account 9876543210, savings. */
  static testBankAccount(): BankAccount {
    return new BankAccount({
      personName: "Joan Parsnip",
      bankType: "savings",
      bankHolderType: "personal",
      bankAccount: "9876543210",
      bankRouting: "021000021",
      bankName: "Test Bank",
      addressZip: "32822",
    });
  }

  /** An account that fails tokenization: its routing number fails the ABA checksum. */
  static failingTestBankAccount(): BankAccount {
    return new BankAccount({
      personName: "Joan Parsnip",
      bankType: "savings",
      bankHolderType: "personal",
      bankAccount: "9876543210",
      bankRouting: "021000022",
      bankName: "Test Bank",
      addressZip: "32822",
    });
  }

  /**
   * A test account that tokenizes and whose charge the bank returns with this ACH code
   * (`R01` insufficient funds, `R02` closed, `R03` no account, `R04` invalid number).
   * @example
   * const bank = BankAccount.decliningTestBankAccount("R02");
   */
  static decliningTestBankAccount(reason: "R01" | "R02" | "R03" | "R04" = "R01"): BankAccount {
    const entry = /^R0[1-4]$/.test(String(reason))
      ? TEST_BANK.accounts.find((account) => account.outcome === reason)
      : undefined;
    if (!entry)
      throw new TypeError(`decliningTestBankAccount: expected R01, R02, R03 or R04, got ${JSON.stringify(reason)}.`);
    return new BankAccount({ ...BankAccount.testBankAccount(), bankAccount: entry.account });
  }

  /** The fields, with the account number reduced to its last four. */
  toJSON(): Record<string, string> {
    const shown: Record<string, string> = { ...(this as unknown as Record<string, string>) };
    shown.bankAccount = lastFour(this.bankAccount);
    return shown;
  }

  [INSPECT](): string {
    return `BankAccount ${JSON.stringify(this)}`;
  }
}

/** The iOS helpers as functions, for `import { testCreditCard } from "paysandbox-mobile"`. */
export const testCreditCard = (): CreditCard => CreditCard.testCreditCard();
export const failingTestCreditCard = (): CreditCard => CreditCard.failingTestCreditCard();
export const testBankAccount = (): BankAccount => BankAccount.testBankAccount();
export const failingTestBankAccount = (): BankAccount => BankAccount.failingTestBankAccount();
export const decliningTestCreditCard = (reason?: DeclineCode): CreditCard => CreditCard.decliningTestCreditCard(reason);
export const decliningTestBankAccount = (reason?: "R01" | "R02" | "R03" | "R04"): BankAccount =>
  BankAccount.decliningTestBankAccount(reason);

/** The tokenize request body of a card or bank account (docs/contract.md §5): snake_case, only the given fields. */
export function wireBody(input: CreditCard | BankAccount): Record<string, unknown> {
  const body: Record<string, unknown> = { method: input instanceof CreditCard ? "card" : "bank" };
  const properties: readonly InputProperty[] = input instanceof CreditCard ? CARD_PROPERTIES : BANK_PROPERTIES;
  for (const property of properties) {
    const value = (input as unknown as Record<string, unknown>)[property];
    // An empty optional field is the same as none; an empty required one gets the server's "required".
    if (value !== undefined && value !== "") body[WIRE_NAMES[property]] = value;
  }
  return body;
}
