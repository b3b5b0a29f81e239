/**
 * The card frames' style sanitizer: turns the integrator's `style` option (a CSS declaration
 * string, as the specification types it, or an object of CSS properties) into declarations the
 * frame may set on its input. It runs inside the frame only, and the result is applied through
 * the CSSOM (`style.setProperty`), never as markup.
 *
 * A declaration survives only when its property is on the allowlist and its value is made of
 * plain tokens: no backslash escapes (`u\72l(`), no `url()`, `expression()` or any function
 * outside colours and `calc()`, no `@`, `<`, `>`, `{`, `}`, `;` or `:` left over.
 */
import type { FieldStyle } from "./types";

const SIDES = ["top", "right", "bottom", "left"];
const BORDER_PARTS = ["color", "style", "width"];

/** What the frame's input may be styled with: text, box, border and colour, nothing that loads or positions. */
export const STYLE_PROPERTIES: ReadonlySet<string> = new Set([
  ..."color caret-color opacity direction box-sizing box-shadow background-color".split(" "),
  ..."font font-family font-size font-style font-weight font-variant font-stretch line-height".split(" "),
  ..."letter-spacing word-spacing text-align text-indent text-transform text-decoration text-shadow".split(" "),
  ..."width height min-width min-height max-width max-height".split(" "),
  ...["padding", "margin"].flatMap((box) => [box, ...SIDES.map((side) => `${box}-${side}`)]),
  ..."border border-radius border-top-left-radius border-top-right-radius".split(" "),
  ..."border-bottom-left-radius border-bottom-right-radius outline outline-offset".split(" "),
  ...BORDER_PARTS.flatMap((part) => [`border-${part}`, `outline-${part}`]),
  ...SIDES.flatMap((side) => [`border-${side}`, ...BORDER_PARTS.map((part) => `border-${side}-${part}`)]),
]);

/** Functions a value may call: colours and arithmetic. Everything else (url, expression, image-set, var, …) is refused. */
const VALUE_FUNCTIONS: ReadonlySet<string> = new Set(["rgb", "rgba", "hsl", "hsla", "calc", "min", "max", "clamp"]);

/** Longest value kept: a style value has no business being long. */
const MAX_VALUE_LENGTH = 200;

export interface SanitizedStyle {
  /** [kebab-case property, value], in the order given. */
  declarations: [string, string][];
  /** What was left out, each named once: a property, or the start of a declaration that is not one. */
  dropped: string[];
}

/** `fontSize` → `font-size`; already kebab-case names pass as they are. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).toLowerCase();
}

/** A short, printable name for a warning (never the whole hostile string). */
function shown(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, "?").trim();
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

/** True for a value made only of plain tokens and allowed functions. */
export function isSafeValue(value: string): boolean {
  if (value === "" || value.length > MAX_VALUE_LENGTH) return false;
  // Letters (any script, for font names), digits, spaces, and the punctuation of ordinary values.
  if (!/^[\p{L}\p{N}\s#%.,+\-*/'"()!_]*$/u.test(value)) return false;
  if (/\/\*|\*\//.test(value)) return false;
  // Quotes balanced (font names), brackets balanced, and every call one of the allowed functions.
  if ((value.match(/'/g)?.length ?? 0) % 2 === 1 || (value.match(/"/g)?.length ?? 0) % 2 === 1) return false;
  let depth = 0;
  for (const char of value) {
    if (char === "(") depth++;
    else if (char === ")" && --depth < 0) return false;
  }
  if (depth !== 0) return false;
  for (const call of value.matchAll(/([\p{L}\p{N}_-]*)\s*\(/gu)) {
    if (!VALUE_FUNCTIONS.has(call[1]!.toLowerCase())) return false;
  }
  // "!important" is accepted and ignored; a "!" anywhere else is not CSS.
  return !/!/.test(value.replace(/!\s*important\s*$/i, ""));
}

/**
 * Splits a declaration string on the semicolons that end declarations (not those inside
 * quotes or brackets), after removing comments. An unterminated comment swallows the rest,
 * as it does in CSS.
 */
export function splitDeclarations(style: string): string[] {
  const text = style.replace(/\/\*[\s\S]*?(\*\/|$)/g, " ");
  const parts: string[] = [];
  let current = "";
  let quote: string | null = null;
  let depth = 0;
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    else if (char === ";" && depth === 0) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== "");
}

function add(result: SanitizedStyle, property: string, rawValue: unknown): void {
  const value = typeof rawValue === "number" && Number.isFinite(rawValue) ? String(rawValue) : rawValue;
  if (!STYLE_PROPERTIES.has(property) || typeof value !== "string" || !isSafeValue(value.trim())) {
    const label = shown(property);
    if (!result.dropped.includes(label)) result.dropped.push(label);
    return;
  }
  result.declarations.push([property, value.trim().replace(/\s*!\s*important\s*$/i, "")]);
}

/** The declarations of a `style` option that the frame may apply, and what it dropped. */
export function sanitizeStyle(style: FieldStyle | undefined | null): SanitizedStyle {
  const result: SanitizedStyle = { declarations: [], dropped: [] };
  if (style === undefined || style === null) return result;
  if (typeof style === "string") {
    for (const declaration of splitDeclarations(style)) {
      const colon = declaration.indexOf(":");
      // "@import …", "}</style>…", a bare word: not a declaration; named by its first characters.
      if (colon <= 0 || !/^-?[a-zA-Z][\w-]*$/.test(declaration.slice(0, colon).trim())) {
        const label = shown(declaration.split(/[\s:(]/)[0] || declaration);
        if (!result.dropped.includes(label)) result.dropped.push(label);
        continue;
      }
      // Property names are case-insensitive in CSS.
      add(result, declaration.slice(0, colon).trim().toLowerCase(), declaration.slice(colon + 1));
    }
    return result;
  }
  if (typeof style === "object") {
    for (const [name, value] of Object.entries(style)) add(result, kebab(name.trim()), value);
  }
  return result;
}
