/**
 * The card form's pure logic, shared by the frames and the parent: what a field shows in each
 * format, where the caret goes, each field's state, and which event a state change fires.
 */
import {
  cvvLength,
  detectBrand,
  digitsOnly,
  isCardNumberComplete,
  isCardNumberValid,
  isCvvValid,
  maskedFormat,
  maxCardLength,
  prettyFormat,
} from "../rules/card-rules";
import type { CardFormat, CardFormMessage, CardType, FieldState, LiveCardType } from "./types";

export const CARD_FORMATS: readonly CardFormat[] = ["prettyFormat", "plainFormat", "maskedFormat"];

/** The digits a number field keeps of what was typed or pasted: digits only, at most the brand's longest length. */
export function sanitizeNumber(value: string): string {
  const digits = digitsOnly(value);
  return digits.slice(0, maxCardLength(detectBrand(digits)));
}

/** The longest CVV of any brand (Amex). */
export const MAX_CVV_LENGTH = 4;

/**
 * The digits a CVV field keeps: at most 4, whatever the brand. The brand can still change after
 * the CVV (setTestPan after setTestCvv, or a number retyped), so the CVV is never cut to the
 * brand it happened to see; the number frame judges its length against the final brand.
 */
export function sanitizeCvv(value: string): string {
  return digitsOnly(value).slice(0, MAX_CVV_LENGTH);
}

/** The live library's `cardType` names. */
const LIVE_CARD_TYPES: Record<CardType, LiveCardType> = {
  visa: "visa",
  mastercard: "master",
  amex: "american_express",
  discover: "discover",
  diners: "diners_club",
  jcb: "jcb",
};

export function liveCardType(brand: CardType | null): LiveCardType | null {
  return brand ? LIVE_CARD_TYPES[brand] : null;
}

/**
 * What the number input shows: groups (prettyFormat), the digits (plainFormat), or all but
 * the last four as "•" while the field is not focused (maskedFormat).
 */
export function displayNumber(digits: string, format: CardFormat, focused: boolean): string {
  if (format === "prettyFormat") return prettyFormat(digits);
  if (format === "maskedFormat" && !focused) return maskedFormat(digits);
  return digits;
}

/** The caret position in `display` just after its `digitCount`-th digit. */
export function caretAfterDigits(display: string, digitCount: number): number {
  if (digitCount <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < display.length; i++) {
    if (/[\d•]/.test(display[i]!)) seen++;
    if (seen === digitCount) return i + 1;
  }
  return display.length;
}

export function numberState(digits: string): FieldState {
  return { empty: digits.length === 0, complete: isCardNumberComplete(digits), valid: isCardNumberValid(digits) };
}

export function cvvState(cvv: string, brand: CardType | null): FieldState {
  const valid = cvv.length > 0 && isCvvValid(cvv, brand);
  return { empty: cvv.length === 0, complete: cvv.length === cvvLength(brand), valid };
}

/** The message of card_form_complete / card_form_uncomplete for a number and a CVV. */
export function formMessage(numberDigits: string, cvv: string): CardFormMessage {
  const brand = detectBrand(numberDigits);
  const number = numberState(numberDigits);
  const cvvField = cvvState(cvv, brand);
  return {
    complete: number.valid && cvvField.valid,
    card_type: brand,
    number,
    cvv: cvvField,
    cardType: liveCardType(brand),
    validNumber: number.valid,
    validCvv: cvvField.valid,
  };
}

function sameField(a: FieldState, b: FieldState): boolean {
  return a.empty === b.empty && a.complete === b.complete && a.valid === b.valid;
}

export function sameMessage(a: CardFormMessage, b: CardFormMessage): boolean {
  return (
    a.complete === b.complete && a.card_type === b.card_type && sameField(a.number, b.number) && sameField(a.cvv, b.cvv)
  );
}

/**
 * The event a new form state fires: card_form_complete when it becomes complete and valid,
 * card_form_uncomplete on every change that leaves it not complete, nothing when it did not change.
 */
export function formEvent(
  previous: CardFormMessage | null,
  next: CardFormMessage,
): "card_form_complete" | "card_form_uncomplete" | null {
  if (previous && sameMessage(previous, next)) return null;
  if (next.complete) return previous?.complete ? null : "card_form_complete";
  // The first state of an untouched form is not a change the integrator needs to hear about.
  if (!previous && next.number.empty && next.cvv.empty) return null;
  return "card_form_uncomplete";
}
