/**
 * Domain errors: what a service throws when a request cannot be served (docs/contract.md §7). The
 * HTTP layer renders them, and every other thrown value, as the one error envelope
 * (src/http/pipeline/error-envelope.ts).
 */
import { API_ERROR_STATUS, type ApiErrorBody, type ApiErrorCode } from "../../packages/rules/codes";
import type { FieldErrors } from "../../packages/rules/validation";

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly context: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = API_ERROR_STATUS[code];
  }

  /**
   * The envelope. A validation failure also carries each failing field's messages at the top
   * level (`{"card_number": ["…"]}`), where clients written for the real service look. A field
   * whose name is already a member of the envelope (`message`, `code`, `errors`, or a context
   * member) is not copied there: the envelope member wins and the field stays in `errors`.
   */
  toBody(): ApiErrorBody {
    const body: ApiErrorBody = { message: this.message, code: this.code, ...this.context };
    const errors = this.code === "validation_error" ? (this.context.errors as FieldErrors | undefined) : undefined;
    for (const [field, messages] of Object.entries(errors ?? {})) {
      // defineProperty: a field named "__proto__" becomes a plain member, never the prototype.
      if (!Object.hasOwn(body, field))
        Object.defineProperty(body, field, { value: messages, enumerable: true, writable: true, configurable: true });
    }
    return body;
  }
}

export class ValidationFailed extends ApiError {
  constructor(
    readonly errors: FieldErrors,
    message = firstMessage(errors),
  ) {
    super("validation_error", message, { errors });
  }
}

function firstMessage(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? "The given data was invalid.";
  return all.length > 1 ? `${first} (and ${all.length - 1} more error${all.length > 2 ? "s" : ""})` : first;
}

/** Throws a 422 when any rule failed. */
export function assertValid(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw new ValidationFailed(errors);
}

export const notFound = (what: string) => new ApiError("not_found", `${what} not found.`);

/**
 * What a request answers when another one deleted records it was using while it ran: a sandbox
 * reset or merchant deletion at the same moment (a write's foreign key, a read's related rows).
 */
export const DELETED_MEANWHILE =
  "A record this request uses was deleted while it ran (a sandbox reset or a delete at the same moment); nothing was written.";
export const invalidState = (message: string, context: Record<string, unknown> = {}) =>
  new ApiError("invalid_state", message, context);
