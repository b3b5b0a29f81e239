/**
 * The request body exactly as sent. Elysia's schema normalization strips unknown members and
 * turns an array where an object is expected into an object ({"0": …}); rules that must see
 * the value as given (meta is stored as given) read it from here.
 */
const RAW_BODIES = new WeakMap<Request, string>();

export function rememberRawBody(request: Request, text: string): void {
  RAW_BODIES.set(request, text);
}

/** The parsed body as sent, or {} when there was none. */
export function rawBody(request: Request): Record<string, unknown> {
  const text = RAW_BODIES.get(request);
  if (!text) return {};
  const parsed: unknown = JSON.parse(text);
  return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
