/**
 * The simulated processor's test data (docs/contract.md §8). Only these numbers tokenize, so real card
 * data never lands in the sandbox.
 */
import type { CardBrand } from "./card-rules";

/** What the simulated processor does with a payment method when it is charged. */
export type Outcome =
  "approve" | "decline" | "insufficient_funds" | "expired_card" | "incorrect_cvv" | "processing_error";

export interface TestCard {
  number: string;
  brand: CardBrand;
  outcome: Outcome;
  description: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: "4111111111111111", brand: "visa", outcome: "approve", description: "Visa, approves" },
  { number: "4012888888881881", brand: "visa", outcome: "decline", description: "Visa, declines at charge" },
  { number: "5555555555554444", brand: "mastercard", outcome: "approve", description: "Mastercard, approves" },
  {
    number: "5105105105105100",
    brand: "mastercard",
    outcome: "decline",
    description: "Mastercard, declines at charge",
  },
  { number: "378282246310005", brand: "amex", outcome: "approve", description: "American Express, approves" },
  { number: "371449635398431", brand: "amex", outcome: "decline", description: "American Express, declines at charge" },
  { number: "6011111111111117", brand: "discover", outcome: "approve", description: "Discover, approves" },
  { number: "6011000990139424", brand: "discover", outcome: "decline", description: "Discover, declines at charge" },
  { number: "3530111333300000", brand: "jcb", outcome: "approve", description: "JCB, approves" },
  { number: "3566002020360505", brand: "jcb", outcome: "decline", description: "JCB, declines at charge" },
  { number: "36227206271667", brand: "diners", outcome: "approve", description: "Diners Club, approves" },
  { number: "30569309025904", brand: "diners", outcome: "decline", description: "Diners Club, declines at charge" },
  { number: "4000000000009995", brand: "visa", outcome: "insufficient_funds", description: "Visa, insufficient funds" },
  { number: "4000000000000069", brand: "visa", outcome: "expired_card", description: "Visa, expired card" },
  { number: "4000000000000127", brand: "visa", outcome: "incorrect_cvv", description: "Visa, incorrect CVV" },
  {
    number: "4000000000000119",
    brand: "visa",
    outcome: "processing_error",
    description: "Visa, processing error (retryable)",
  },
];

const BY_NUMBER = new Map(TEST_CARDS.map((card) => [card.number, card]));

/** The test card with this number, or undefined for any other number. */
export function findTestCard(number: string): TestCard | undefined {
  return BY_NUMBER.get(number);
}

export const TEST_BANK = {
  routing: "021000021",
  approvingAccount: "9876543210",
  description: "Routing 021000021 with account 9876543210 approves; any other account at that routing declines.",
} as const;

/** The outcome of a bank account, or undefined when its routing number is not the test one. */
export function bankOutcome(routing: string, account: string): Outcome | undefined {
  if (routing !== TEST_BANK.routing) return undefined;
  return account === TEST_BANK.approvingAccount ? "approve" : "decline";
}
