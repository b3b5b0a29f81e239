/** paysandbox/testing: the test cards and bank accounts (part of index.d.ts, shipped in it). */

/**
 * Why the sandbox declines a charge: the transaction's `decline_code` and the 402's `decline_code`
 * (docs/testing-failures.md lists each with its message and whether a retry can succeed).
 */
export type DeclineCode =
  | "decline"
  | "insufficient_funds"
  | "lost_card"
  | "stolen_card"
  | "expired_card"
  | "incorrect_cvv"
  | "incorrect_number"
  | "do_not_honor"
  | "pickup_card"
  | "suspected_fraud"
  | "card_velocity_exceeded"
  | "restricted_card"
  | "invalid_amount"
  | "issuer_unavailable"
  | "processing_error"
  | "incorrect_zip"
  | "incorrect_address"
  | "R01"
  | "R02"
  | "R03"
  | "R04";

/** How a test card or bank account behaves when charged: approve, or decline with a reason. */
export type Outcome = "approve" | DeclineCode;

export type CardBrand = "visa" | "mastercard" | "amex" | "discover" | "jcb" | "diners";

/** A test card with everything a form or the API asks for: a CVV of its brand's length and a future expiry. */
export interface TestCard {
  /** The card number, digits only, e.g. "4111111111111111". */
  readonly number: string;
  /** A CVV of the right length for the brand ("1234" for Amex, "123" otherwise). */
  readonly cvv: string;
  /** Expiry month, two digits ("12"). */
  readonly month: string;
  /** Expiry year, four digits, a few years ahead. */
  readonly year: string;
  /** The expiry as the tokenize route's `card_exp` wants it: MMYY. */
  readonly exp: string;
  readonly brand: CardBrand;
  /** How the card is funded (the payment method's bin_type): only credit cards are surcharged. */
  readonly funding: "credit" | "debit" | "prepaid";
  readonly outcome: Outcome;
  readonly description: string;
}

/** The issuer decline reasons that have a Visa, a Mastercard and an Amex test card, in camelCase. */
export interface ReasonCards {
  readonly insufficientFunds: TestCard;
  readonly lostCard: TestCard;
  readonly stolenCard: TestCard;
  readonly expiredCard: TestCard;
  readonly incorrectCvv: TestCard;
  readonly incorrectNumber: TestCard;
  readonly doNotHonor: TestCard;
  readonly pickupCard: TestCard;
  readonly suspectedFraud: TestCard;
  readonly cardVelocityExceeded: TestCard;
  readonly restrictedCard: TestCard;
  readonly invalidAmount: TestCard;
  readonly issuerUnavailable: TestCard;
  readonly processingError: TestCard;
}

/**
 * Test cards by brand and outcome: `cards.visa.approve`, `cards.amex.decline`,
 * `cards.visa.insufficientFunds`, `cards.mastercard.stolenCard`… (every reason of ReasonCards on
 * Visa, Mastercard and Amex). All credit cards, but `debit` and `prepaid` (`cards.visa.debit`,
 * `cards.amex.prepaid`…), which approve and are never surcharged. `newExpiry` and `reissued`
 * (`cards.visa.reissued`…) approve, and their brand updates them on the sandbox clock: a new
 * expiry, or a new number (docs/testing-failures.md, "Card updates"). `disputeFraud`,
 * `disputeProductNotReceived` (Visa), `disputeDuplicate` (Mastercard), `disputeCreditNotProcessed`
 * (Amex) and `disputeSubscriptionCanceled` (Discover) approve, and the cardholder disputes each
 * settled charge on the sandbox clock (docs/testing-failures.md, "Disputes").
 */
export declare const cards: {
  readonly visa: {
    readonly approve: TestCard;
    readonly decline: TestCard;
    readonly debit: TestCard;
    readonly prepaid: TestCard;
    readonly newExpiry: TestCard;
    readonly reissued: TestCard;
    readonly disputeFraud: TestCard;
    readonly disputeProductNotReceived: TestCard;
  } & ReasonCards;
  readonly mastercard: {
    readonly approve: TestCard;
    readonly decline: TestCard;
    readonly debit: TestCard;
    readonly prepaid: TestCard;
    readonly newExpiry: TestCard;
    readonly reissued: TestCard;
    readonly disputeDuplicate: TestCard;
  } & ReasonCards;
  readonly amex: {
    readonly approve: TestCard;
    readonly decline: TestCard;
    readonly prepaid: TestCard;
    readonly reissued: TestCard;
    readonly disputeCreditNotProcessed: TestCard;
  } & ReasonCards;
  readonly discover: {
    readonly approve: TestCard;
    readonly decline: TestCard;
    readonly debit: TestCard;
    readonly disputeSubscriptionCanceled: TestCard;
  };
  readonly jcb: { readonly approve: TestCard; readonly decline: TestCard };
  readonly diners: { readonly approve: TestCard; readonly decline: TestCard };
};

/** A test bank account, in the tokenize route's terms. */
export interface TestBankAccount {
  readonly routing: string;
  readonly account: string;
  readonly type: "checking" | "savings";
  readonly holderType: "personal" | "business";
  readonly outcome: "approve" | "decline" | "R01" | "R02" | "R03" | "R04";
}

/** An ACH return code a test account's bank sends after settlement. */
export type AchReturnCode = "R01" | "R02" | "R03" | "R04" | "R10" | "R29";

/** A test bank account whose charge approves, settles, and is returned by its bank later. */
export interface ReturningBankAccount extends TestBankAccount {
  readonly outcome: "approve";
  /** The return: its code, and how many business days after the settlement day it comes (0: at settlement, before payout). */
  readonly achReturn: { readonly code: AchReturnCode; readonly businessDays: number };
}

/**
 * Test bank accounts by outcome: `bank.approve` (021000021 / 9876543210), `bank.decline`, and the
 * ACH returns `bank.R01` (insufficient funds), `bank.R02` (closed), `bank.R03` (no account),
 * `bank.R04` (invalid account number), which decline at once. `bank.returned.R01` … `bank.returned.R29`
 * approve and are returned after they settle, on the sandbox clock (`bank.returned.R01AtSettlement`
 * at the settlement itself, before payout; docs/testing-failures.md, "ACH returns after settlement").
 */
export declare const bank: {
  readonly approve: TestBankAccount;
  readonly decline: TestBankAccount;
  readonly R01: TestBankAccount;
  readonly R02: TestBankAccount;
  readonly R03: TestBankAccount;
  readonly R04: TestBankAccount;
  readonly returned: {
    readonly R01: ReturningBankAccount;
    readonly R01AtSettlement: ReturningBankAccount;
    readonly R02: ReturningBankAccount;
    readonly R03: ReturningBankAccount;
    readonly R04: ReturningBankAccount;
    readonly R10: ReturningBankAccount;
    readonly R29: ReturningBankAccount;
  };
};
