/**
 * A request's id: made on first read and kept on the request's `set` (Elysia's per-request
 * answer state, the one object every hook and handler of one request shares), so the 5xx log
 * line, the `x-request-id` header and an `internal_error`'s body name the same id. A request
 * nothing asks about costs no UUID: with the request log off, a request that succeeds never gets one.
 *
 * Hooks take `set` by destructuring, never the whole context: Elysia reads which context members
 * a hook uses from its source, and one that takes the context whole makes every request prepare
 * all of them (measured: +3 µs a request, more than half of a static answer's cost).
 *
 * @example
 * new Elysia().onError(({ set }) => ({ request_id: requestIdOf(set) }));
 */

const REQUEST_ID = Symbol("paysandbox.requestId");

/** The id of the request whose `set` this is, made on first call. */
export function requestIdOf(set: object): string {
  const holder = set as { [REQUEST_ID]?: string };
  return (holder[REQUEST_ID] ??= crypto.randomUUID());
}
