/**
 * Card and bank number rules, written once: the browser frames, the mobile SDK and the
 * server's tokenize endpoint all import them.
 */

export const CARD_BRANDS = ["visa", "mastercard", "amex", "discover", "jcb", "diners"] as const;
export type CardBrand = (typeof CARD_BRANDS)[number];

interface BrandRule {
  brand: CardBrand;
  /** Matches the leading digits (IIN ranges). */
  prefix: RegExp;
  lengths: readonly number[];
  cvvLength: number;
  /** Digit groups for prettyFormat. */
  groups: readonly number[];
}

// Order matters: the first rule whose prefix matches wins.
const BRAND_RULES: readonly BrandRule[] = [
  { brand: "amex", prefix: /^3[47]/, lengths: [15], cvvLength: 4, groups: [4, 6, 5] },
  { brand: "diners", prefix: /^3(0[0-5]|[689])/, lengths: [14, 16], cvvLength: 3, groups: [4, 6, 4] },
  { brand: "jcb", prefix: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19], cvvLength: 3, groups: [4, 4, 4, 4, 3] },
  {
    brand: "discover",
    prefix: /^(6011|65|64[4-9]|622(12[6-9]|1[3-9]|[2-8]|9[01]|92[0-5]))/,
    lengths: [16, 19],
    cvvLength: 3,
    groups: [4, 4, 4, 4, 3],
  },
  {
    brand: "mastercard",
    prefix: /^(5[1-5]|2(2[2-9][1-9]|2[3-9]|[3-6]|7[01]|720))/,
    lengths: [16],
    cvvLength: 3,
    groups: [4, 4, 4, 4],
  },
  { brand: "visa", prefix: /^4/, lengths: [13, 16, 19], cvvLength: 3, groups: [4, 4, 4, 4, 3] },
];

const DEFAULT_CVV_LENGTH = 3;
const DEFAULT_GROUPS = [4, 4, 4, 4, 3] as const;
const MAX_CARD_LENGTH = 19;

/** Keeps only the digits of what a person typed ("4111 1111-1111" → "41111111111"). */
export function digitsOnly(value: string): string {
  return value.replace(/\D/g, "");
}

/** The brand of a (possibly partial) card number, or null while it cannot be told. */
export function detectBrand(number: string): CardBrand | null {
  const digits = digitsOnly(number);
  if (digits.length === 0) return null;
  return BRAND_RULES.find((rule) => rule.prefix.test(digits))?.brand ?? null;
}

function ruleFor(brand: CardBrand | null): BrandRule | undefined {
  return BRAND_RULES.find((rule) => rule.brand === brand);
}

/** The Luhn (mod 10) check every real card number passes. */
export function luhnValid(number: string): boolean {
  const digits = digitsOnly(number);
  if (digits.length < 2) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** Valid card number lengths of a brand. */
export function cardLengths(brand: CardBrand | null): readonly number[] {
  return ruleFor(brand)?.lengths ?? [];
}

/** The longest number a brand allows (19 when the brand is not known yet). */
export function maxCardLength(brand: CardBrand | null): number {
  const lengths = cardLengths(brand);
  return lengths.length ? Math.max(...lengths) : MAX_CARD_LENGTH;
}

/** CVV length of a brand: 4 for Amex, 3 otherwise. */
export function cvvLength(brand: CardBrand | null): number {
  return ruleFor(brand)?.cvvLength ?? DEFAULT_CVV_LENGTH;
}

/** Digit groups for prettyFormat: 4-4-4-4, Amex 4-6-5, Diners 4-6-4. */
export function cardGroups(brand: CardBrand | null): readonly number[] {
  return ruleFor(brand)?.groups ?? DEFAULT_GROUPS;
}

/** A number is complete when it has one of its brand's lengths. */
export function isCardNumberComplete(number: string): boolean {
  const digits = digitsOnly(number);
  return cardLengths(detectBrand(digits)).includes(digits.length);
}

/** Complete, of a known brand, and passing Luhn. */
export function isCardNumberValid(number: string): boolean {
  return isCardNumberComplete(number) && luhnValid(number);
}

/** A CVV is valid when it is all digits and has the brand's length. */
export function isCvvValid(cvv: string, brand: CardBrand | null): boolean {
  return /^\d+$/.test(cvv) && cvv.length === cvvLength(brand);
}

/** Inserts spaces between the brand's digit groups ("4111111111111111" → "4111 1111 1111 1111"). */
export function prettyFormat(number: string): string {
  const digits = digitsOnly(number);
  const groups = cardGroups(detectBrand(digits));
  const parts: string[] = [];
  let at = 0;
  for (const size of groups) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(" ");
}

/** All but the last four digits shown as "•". */
export function maskedFormat(number: string): string {
  const digits = digitsOnly(number);
  const hidden = Math.max(0, digits.length - 4);
  return "•".repeat(hidden) + digits.slice(hidden);
}

/** ABA routing number: 9 digits whose weighted sum (3,7,1 repeating) is a multiple of 10. */
export function isValidAbaRouting(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = Array.from(routing, (c) => c.charCodeAt(0) - 48);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}
