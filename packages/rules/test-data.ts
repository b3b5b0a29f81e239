/**
 * The simulated processor's test data (docs/contract.md §8). Only these numbers tokenize, so real card
 * data never lands in the sandbox.
 */
import type { CardBrand } from "./card-rules";
import { DECLINE_CODES, DECLINE_REASONS, type DeclineCode } from "./declines";

/** What the simulated processor does with a payment method when it is charged: approve, or decline with a reason. */
export type Outcome = "approve" | DeclineCode;

/** Every outcome, approve first (what POST /_sandbox/outcomes accepts). */
export const OUTCOMES: readonly Outcome[] = ["approve", ...DECLINE_CODES];

/**
 * How a card is funded, as its BIN says (the real record's `bin_type`): only credit cards may be
 * surcharged; debit and prepaid cards never are (card brand rules, docs/contract.md "Surcharging").
 */
export type CardFunding = "credit" | "debit" | "prepaid";

export interface TestCard {
  number: string;
  brand: CardBrand;
  funding: CardFunding;
  outcome: Outcome;
  description: string;
  /** A card its brand updates on the sandbox clock (the account updater): when, and to what. */
  update?: CardUpdate;
  /** A card whose settled charges the cardholder disputes on the sandbox clock: why, and when. */
  dispute?: CardDispute;
}

/**
 * Why a cardholder disputes a charge: the dispute's `reason` (GET /underwriting/disputes), with
 * what it means.
 */
export const DISPUTE_REASONS = {
  FRAUD: "Fraudulent: the cardholder did not make the payment",
  PRODUCT_NOT_RECEIVED: "Product not received",
  DUPLICATE: "Duplicate: the cardholder was charged twice",
  CREDIT_NOT_PROCESSED: "Credit not processed: a promised refund never arrived",
  SUBSCRIPTION_CANCELED: "Subscription cancelled: charged after cancelling",
} as const;

export type DisputeReason = keyof typeof DISPUTE_REASONS;

/** A dispute test card's dispute: it opens at the `days`-th midnight UTC after its charge settled. */
export interface CardDispute {
  reason: DisputeReason;
  days: number;
}

/**
 * What the card brand's account updater changes on a saved card, and when: at the first midnight
 * UTC `days` days after the card was saved (its payment method's created_at), on the sandbox clock.
 */
export interface CardUpdate {
  days: number;
  /** A new expiry: the same month, `expiryYears` years later than the saved one. */
  expiryYears?: number;
  /** A new card number ending in these four digits (the brand reissued the card). */
  lastFour?: string;
}

/** A credit card's entry: every card of the table below is a credit card but those of fundingCards(). */
const credit = (card: Omit<TestCard, "funding">): TestCard => ({ ...card, funding: "credit" });

export const TEST_CARDS: readonly TestCard[] = [
  credit({ number: "4111111111111111", brand: "visa", outcome: "approve", description: "Visa, approves" }),
  credit({ number: "4012888888881881", brand: "visa", outcome: "decline", description: "Visa, declines at charge" }),
  credit({ number: "5555555555554444", brand: "mastercard", outcome: "approve", description: "Mastercard, approves" }),
  credit({
    number: "5105105105105100",
    brand: "mastercard",
    outcome: "decline",
    description: "Mastercard, declines at charge",
  }),
  credit({ number: "378282246310005", brand: "amex", outcome: "approve", description: "American Express, approves" }),
  credit({
    number: "371449635398431",
    brand: "amex",
    outcome: "decline",
    description: "American Express, declines at charge",
  }),
  credit({ number: "6011111111111117", brand: "discover", outcome: "approve", description: "Discover, approves" }),
  credit({
    number: "6011000990139424",
    brand: "discover",
    outcome: "decline",
    description: "Discover, declines at charge",
  }),
  credit({ number: "3530111333300000", brand: "jcb", outcome: "approve", description: "JCB, approves" }),
  credit({ number: "3566002020360505", brand: "jcb", outcome: "decline", description: "JCB, declines at charge" }),
  credit({ number: "36227206271667", brand: "diners", outcome: "approve", description: "Diners Club, approves" }),
  credit({
    number: "30569309025904",
    brand: "diners",
    outcome: "decline",
    description: "Diners Club, declines at charge",
  }),
  credit({
    number: "4000000000009995",
    brand: "visa",
    outcome: "insufficient_funds",
    description: "Visa, insufficient funds",
  }),
  credit({ number: "4000000000000069", brand: "visa", outcome: "expired_card", description: "Visa, expired card" }),
  credit({ number: "4000000000000127", brand: "visa", outcome: "incorrect_cvv", description: "Visa, incorrect CVV" }),
  credit({
    number: "4000000000000119",
    brand: "visa",
    outcome: "processing_error",
    description: "Visa, processing error (retryable)",
  }),
  ...reasonCards(),
  ...updatingCards(),
  ...disputedCards(),
  ...fundingCards(),
];

/**
 * Cards that approve and whose settled charges are disputed later on the clock (docs/settlement.md, "Disputes").
 * The two Visa numbers are the ones Stripe's test mode disputes.
 */
function disputedCards(): TestCard[] {
  const cards: [string, CardBrand, string, CardDispute][] = [
    ["4000000000000259", "visa", "Visa", { reason: "FRAUD", days: 3 }],
    ["4000000000002685", "visa", "Visa", { reason: "PRODUCT_NOT_RECEIVED", days: 5 }],
    ["5200000000002599", "mastercard", "Mastercard", { reason: "DUPLICATE", days: 7 }],
    ["378200000000257", "amex", "American Express", { reason: "CREDIT_NOT_PROCESSED", days: 10 }],
    ["6011000000000251", "discover", "Discover", { reason: "SUBSCRIPTION_CANCELED", days: 30 }],
  ];
  return cards.map(([number, brand, name, dispute]) => ({
    number,
    brand,
    funding: "credit",
    outcome: "approve",
    description: `${name}, approves; disputed (${dispute.reason}) ${dispute.days} days after it settles`,
    dispute,
  }));
}

/** Cards that approve and that their brand updates later on the clock (docs/testing-failures.md, "Card updates"). */
function updatingCards(): TestCard[] {
  const cards: [string, CardBrand, CardUpdate, string][] = [
    [
      "4000000000007700",
      "visa",
      { days: 1, expiryYears: 3 },
      "Visa, approves; a new expiry (3 years later) 1 day after it is saved",
    ],
    [
      "4000000000007718",
      "visa",
      { days: 1, lastFour: "4242" },
      "Visa, approves; reissued as ...4242 1 day after it is saved",
    ],
    [
      "5200000000007705",
      "mastercard",
      { days: 3, expiryYears: 2 },
      "Mastercard, approves; a new expiry (2 years later) 3 days after it is saved",
    ],
    [
      "5200000000007713",
      "mastercard",
      { days: 3, lastFour: "4444" },
      "Mastercard, approves; reissued as ...4444 3 days after it is saved",
    ],
    [
      "378200000000778",
      "amex",
      { days: 7, expiryYears: 4, lastFour: "0005" },
      "American Express, approves; reissued as ...0005 with a new expiry (4 years later) 7 days after it is saved",
    ],
  ];
  return cards.map(([number, brand, update, description]) => ({
    number,
    brand,
    funding: "credit",
    outcome: "approve",
    description,
    update,
  }));
}

/**
 * A Visa, a Mastercard and an American Express card for each issuer decline reason, Luhn-valid.
 * The Visa numbers are the ones Stripe's test mode uses where it has one (lost, stolen, velocity).
 */
function reasonCards(): TestCard[] {
  const numbers: [Outcome, string, string, string][] = [
    ["lost_card", "4000000000009987", "5200000000009982", "378200000009985"],
    ["stolen_card", "4000000000009979", "5200000000009974", "378200000009977"],
    ["incorrect_number", "4000000000003014", "5200000000003019", "378200000003012"],
    ["do_not_honor", "4000000000003022", "5200000000003027", "378200000003020"],
    ["pickup_card", "4000000000003030", "5200000000003035", "378200000003038"],
    ["suspected_fraud", "4000000000003048", "5200000000003043", "378200000003046"],
    ["card_velocity_exceeded", "4000000000006975", "5200000000006970", "378200000006973"],
    ["restricted_card", "4000000000003055", "5200000000003050", "378200000003053"],
    ["invalid_amount", "4000000000003063", "5200000000003068", "378200000003061"],
    ["issuer_unavailable", "4000000000003071", "5200000000003076", "378200000003079"],
    ["insufficient_funds", "", "5200000000009990", "378200000009993"],
    ["expired_card", "", "5200000000000064", "378200000000067"],
    ["incorrect_cvv", "", "5200000000000122", "378200000000125"],
    ["processing_error", "", "5200000000000114", "378200000000117"],
  ];
  const cards: TestCard[] = [];
  for (const [outcome, visa, mastercard, amex] of numbers) {
    const retry = outcome !== "approve" && DECLINE_REASONS[outcome].retryable ? " (retryable)" : "";
    const entries: [string, CardBrand, string][] = [
      [visa, "visa", "Visa"],
      [mastercard, "mastercard", "Mastercard"],
      [amex, "amex", "American Express"],
    ];
    for (const [number, brand, name] of entries) {
      if (number)
        cards.push({
          number,
          brand,
          funding: "credit",
          outcome,
          description: `${name}, ${outcome.replace(/_/g, " ")}${retry}`,
        });
    }
  }
  return cards;
}

/**
 * Debit and prepaid cards, which approve and are never surcharged (GET /surcharge/review answers
 * why). The debit Visa, Mastercard and Discover numbers are the ones Stripe's test mode uses.
 */
function fundingCards(): TestCard[] {
  const cards: [string, CardBrand, CardFunding, string][] = [
    ["4000056655665556", "visa", "debit", "Visa debit"],
    ["5200828282828210", "mastercard", "debit", "Mastercard debit"],
    ["6011981111111113", "discover", "debit", "Discover debit"],
    ["4000000000005100", "visa", "prepaid", "Visa prepaid"],
    ["5200000000005105", "mastercard", "prepaid", "Mastercard prepaid"],
    ["378200000005108", "amex", "prepaid", "American Express prepaid"],
  ];
  return cards.map(([number, brand, funding, name]) => ({
    number,
    brand,
    funding,
    outcome: "approve",
    description: `${name}, approves; never surcharged`,
  }));
}

const BY_NUMBER = new Map(TEST_CARDS.map((card) => [card.number, card]));

/** The test card with this number, or undefined for any other number. */
export function findTestCard(number: string): TestCard | undefined {
  return BY_NUMBER.get(number);
}

export interface TestBankAccount {
  account: string;
  outcome: Outcome;
  description: string;
  /** An account that approves and whose bank returns the payment after it settled. */
  achReturn?: AchReturn;
}

/** The ACH return codes the returning test accounts come back with (NACHA's). */
export const ACH_RETURN_REASONS = {
  R01: "Insufficient funds",
  R02: "Account closed",
  R03: "No account / unable to locate account",
  R04: "Invalid account number",
  R10: "Customer advises not authorized",
  R29: "Corporate customer advises not authorized",
} as const;

export type AchReturnCode = keyof typeof ACH_RETURN_REASONS;

/**
 * When a returning account's payment comes back: `businessDays` business days (Mon-Fri) after the
 * day it settled, at that day's end (0: at its settlement itself, before its deposit pays out).
 */
export interface AchReturn {
  code: AchReturnCode;
  businessDays: number;
}

function returning(account: string, code: AchReturnCode, businessDays: number): TestBankAccount {
  const when =
    businessDays === 0
      ? "when it settles, before payout"
      : `${businessDays} business day${businessDays > 1 ? "s" : ""} after it settles`;
  return {
    account,
    outcome: "approve",
    description: `Approves, then is returned ${code} (${ACH_RETURN_REASONS[code].toLowerCase()}) ${when}`,
    achReturn: { code, businessDays },
  };
}

export const TEST_BANK = {
  routing: "021000021",
  approvingAccount: "9876543210",
  description:
    "Routing 021000021 with account 9876543210 approves; 1000000001-1000000004 are declined R01-R04 at once; the 20000000xx accounts approve and are returned after settlement; any other account at that routing declines.",
  /** The accounts at the test routing number whose charge the bank returns (ACH return codes). */
  accounts: [
    { account: "9876543210", outcome: "approve", description: "Approves" },
    { account: "1000000001", outcome: "R01", description: "R01, insufficient funds" },
    { account: "1000000002", outcome: "R02", description: "R02, account closed" },
    { account: "1000000003", outcome: "R03", description: "R03, no account" },
    { account: "1000000004", outcome: "R04", description: "R04, invalid account number" },
    returning("2000000000", "R01", 0),
    returning("2000000001", "R01", 2),
    returning("2000000002", "R02", 3),
    returning("2000000003", "R03", 1),
    returning("2000000004", "R04", 1),
    returning("2000000010", "R10", 5),
    returning("2000000029", "R29", 4),
  ] as readonly TestBankAccount[],
} as const;

const BANK_BY_ACCOUNT = new Map(TEST_BANK.accounts.map((entry) => [entry.account, entry]));

/** The outcome of a bank account, or undefined when its routing number is not the test one. */
export function bankOutcome(routing: string, account: string): Outcome | undefined {
  if (routing !== TEST_BANK.routing) return undefined;
  return BANK_BY_ACCOUNT.get(account)?.outcome ?? "decline";
}

/** The return that comes after settlement for a test account, or undefined (most accounts). */
export function achReturnOf(routing: string, account: string): AchReturn | undefined {
  if (routing !== TEST_BANK.routing) return undefined;
  return BANK_BY_ACCOUNT.get(account)?.achReturn;
}
