/**
 * HTML built by tagged templates that escape every interpolated value, so integrator-supplied
 * text (names, memos, line items, custom fields) can never become markup in an e-mail or a
 * hosted page. Only values already wrapped as SafeHtml pass through unescaped.
 *
 * @example
 * html`<td>${lineItem.item}</td>` // "<td>&lt;b&gt;</td>" for "<b>"
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[];

function render(value: Part): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(value);
}

/** The tagged template: literal parts are trusted markup, every value is escaped (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** A link target that cannot run script: http(s) URLs only, else the fallback. */
export function safeHref(url: string, fallback: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.toString() : fallback;
  } catch {
    return fallback;
  }
}
