/**
 * A request's id: made on first read and kept on Elysia's per-request context (the object every
 * hook and handler of one request receives), so the 5xx log line, the `x-request-id` header and an
 * `internal_error`'s body name the same id. A request nothing asks about costs no UUID: with the
 * request log off, a request that succeeds never gets one.
 *
 * @example
 * new Elysia().onError((context) => ({ request_id: requestIdOf(context) }));
 */

const REQUEST_ID = Symbol("paysandbox.requestId");

/** The id of the request whose Elysia context this is, made on first call. */
export function requestIdOf(context: object): string {
  const holder = context as { [REQUEST_ID]?: string };
  return (holder[REQUEST_ID] ??= crypto.randomUUID());
}
