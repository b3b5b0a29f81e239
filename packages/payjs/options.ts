/**
 * The checks on what an integrator passes to PayJs: a misuse is a TypeError naming the option,
 * thrown at once, rather than a broken card form later.
 */
import { CARD_FORMATS } from "./card-form";
import { LIBRARY_MESSAGES } from "./errors";
import type { FieldName } from "./protocol";
import type { FieldInputType, PayJsOptions } from "./types";

export const INPUT_TYPES: readonly FieldInputType[] = ["text", "tel", "number", "password"];

export function misuse(what: string, expected: string, got: unknown): TypeError {
  const shown = typeof got === "string" ? JSON.stringify(got) : got === null ? "null" : typeof got;
  return new TypeError(`PayJs: ${what} expected ${expected}, got ${shown}`);
}

function checkFieldOptions(name: FieldName, options: unknown): void {
  if (options === undefined) return;
  if (!options || typeof options !== "object") throw misuse(`options.${name}`, "an object", options);
  const o = options as Record<string, unknown>;
  if (typeof o.id !== "string" || o.id === "") throw misuse(`options.${name}.id`, "an element id", o.id);
  if (o.placeholder !== undefined && typeof o.placeholder !== "string")
    throw misuse(`options.${name}.placeholder`, "a string", o.placeholder);
  // An input type the frame does not know is not worth a broken checkout: it warns and uses tel.
  if (o.type !== undefined && !INPUT_TYPES.includes(o.type as FieldInputType))
    console.warn(LIBRARY_MESSAGES.unknownInputType(name, String(o.type)));
  if (o.style !== undefined && typeof o.style !== "string" && (typeof o.style !== "object" || o.style === null))
    throw misuse(`options.${name}.style`, "a CSS declaration string or an object of CSS properties", o.style);
  if (name === "number" && o.format !== undefined && !CARD_FORMATS.includes(o.format as never))
    throw misuse("options.number.format", CARD_FORMATS.join(" | "), o.format);
}

/** The PayJs constructor's arguments: a token, and options whose card fields come as a pair. */
export function checkConstructorArgs(token: unknown, options: PayJsOptions): void {
  if (typeof token !== "string" || token === "") throw misuse("token", "the web payments token (a string)", token);
  if (!options || typeof options !== "object") throw misuse("options", "an object", options);
  checkFieldOptions("number", options.number);
  checkFieldOptions("cvv", options.cvv);
  // A card form needs both frames; naming the one left out beats a container error later.
  if (options.number && !options.cvv)
    throw misuse("options.cvv", "{ id } of the CVV container (a card form needs number and cvv)", options.cvv);
  if (options.cvv && !options.number)
    throw misuse(
      "options.number",
      "{ id } of the card number container (a card form needs number and cvv)",
      options.number,
    );
}
