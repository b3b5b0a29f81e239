/**
 * Test cards and bank accounts by outcome, built from the simulated processor's own table
 * (packages/rules/test-data.ts), so the toolkit offers exactly the numbers the sandbox accepts.
 */
import { TEST_BANK, TEST_CARDS } from "../../rules/test-data";
import type * as Public from "../index";

/** "insufficient_funds" → "insufficientFunds". */
function camel(outcome: string): string {
  return outcome.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** A future expiry that stays valid for years of test runs: December, five years ahead. */
function expiry(now = new Date()): { month: string; year: string; exp: string } {
  const year = String(now.getUTCFullYear() + 5);
  return { month: "12", year, exp: `12${year.slice(2)}` };
}

/**
 * A card's name under its brand: credit cards by outcome; the debit and prepaid ones (which
 * approve) by their funding; the ones their brand updates on the clock (which approve too) by the
 * update: `reissued` (a new number) or `newExpiry`; the disputed ones by their dispute's reason:
 * `disputeFraud`, `disputeProductNotReceived`…
 */
function keyOf(card: (typeof TEST_CARDS)[number]): string {
  if (card.update) return card.update.lastFour ? "reissued" : "newExpiry";
  if (card.dispute) return camel(`dispute_${card.dispute.reason.toLowerCase()}`);
  return card.funding === "credit" ? camel(card.outcome) : card.funding;
}

function buildCards(): typeof Public.cards {
  const { month, year, exp } = expiry();
  const byBrand: Record<string, Record<string, Public.TestCard>> = {};
  for (const card of TEST_CARDS) {
    const entry: Public.TestCard = Object.freeze({
      number: card.number,
      cvv: card.brand === "amex" ? "1234" : "123",
      month,
      year,
      exp,
      brand: card.brand,
      funding: card.funding,
      outcome: card.outcome,
      description: card.description,
    });
    (byBrand[card.brand] ??= {})[keyOf(card)] = entry;
  }
  for (const brand of Object.values(byBrand)) Object.freeze(brand);
  return Object.freeze(byBrand) as unknown as typeof Public.cards;
}

export const cards: typeof Public.cards = buildCards();

const account = (outcome: "R01" | "R02" | "R03" | "R04"): Public.TestBankAccount =>
  Object.freeze({
    routing: TEST_BANK.routing,
    account: TEST_BANK.accounts.find((entry) => entry.outcome === outcome)!.account,
    type: "checking",
    holderType: "personal",
    outcome,
  });

/** The accounts that approve and are returned after settlement, by code (the 0-day R01 by its own name). */
function returnedAccounts(): typeof Public.bank.returned {
  const byName: Record<string, Public.ReturningBankAccount> = {};
  for (const entry of TEST_BANK.accounts) {
    if (!entry.achReturn) continue;
    const { code, businessDays } = entry.achReturn;
    const name = code === "R01" && businessDays === 0 ? "R01AtSettlement" : code;
    byName[name] = Object.freeze({
      routing: TEST_BANK.routing,
      account: entry.account,
      type: "checking",
      holderType: "personal",
      outcome: "approve",
      achReturn: Object.freeze({ code, businessDays }),
    });
  }
  return Object.freeze(byName) as unknown as typeof Public.bank.returned;
}

export const bank: typeof Public.bank = Object.freeze({
  approve: Object.freeze({
    routing: TEST_BANK.routing,
    account: TEST_BANK.approvingAccount,
    type: "checking",
    holderType: "personal",
    outcome: "approve",
  }),
  R01: account("R01"),
  R02: account("R02"),
  R03: account("R03"),
  R04: account("R04"),
  returned: returnedAccounts(),
  // Any other account at the test routing number declines (docs/contract.md §8).
  decline: Object.freeze({
    routing: TEST_BANK.routing,
    account: "1234567890",
    type: "checking",
    holderType: "personal",
    outcome: "decline",
  }),
});
