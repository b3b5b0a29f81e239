/**
 * The one escaping helper of every page and e-mail the sandbox renders (dashboard, hosted
 * pages, receipts). Each value interpolated into the `html` tag is HTML-escaped unless it is
 * itself the result of `html` (already safe), so a customer named `<img src=x onerror=alert(1)>`
 * shows as text, never as markup.
 *
 * @example
 *   html`<td>${customer.firstname}</td>`                      // escaped
 *   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>` // nested fragments stay markup
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Escapes text for an element body or a quoted attribute value (null and undefined are empty). */
export function escapeHtml(text: unknown): string {
  return String(text ?? "").replace(/[&<>"'`]/g, (c) => ENTITIES[c]!);
}

/** A value as it appears in a page: null/undefined/false render nothing; arrays render each item. */
export type Renderable = SafeHtml | string | number | boolean | null | undefined | readonly Renderable[];

function render(value: Renderable): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(value);
}

/** The tagged template: literal parts are trusted markup, every value is escaped. */
export function html(strings: TemplateStringsArray, ...values: Renderable[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Markup that is already safe (a constant of this code base, never user data). */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
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

/** A query string from the given parameters, skipping empty ones ("" when none). */
export function queryString(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
