/**
 * The last step of the request pipeline: the one error envelope (docs/contract.md §4). Any thrown
 * value (an ApiError from a service or a pipeline step, Elysia's own validation and parse errors,
 * a bug) becomes a status, a body and headers, with the request's id in `x-request-id`; every 5xx
 * is logged with that id.
 *
 * @example
 * new Elysia().use(errorEnvelope({ log })).get("/", () => {
 *   throw new ApiError("not_found", "Nothing here."); // → 404 {"message":"Nothing here.","code":"not_found"}
 * });
 */
import type { ApiErrorBody } from "../../../packages/rules/codes";
import type { FieldErrors } from "../../../packages/rules/validation";
import { ApiError, ValidationFailed } from "../../domain/errors";
import { Elysia } from "elysia";
import type { Logger } from "../../lib/logger";
import { TOO_LARGE_MESSAGE } from "./body";
import { requestIdOf } from "./request-id";

/** TypeBox error paths are JSON pointers ("/meta/tax"); the envelope uses dotted names ("meta.tax"). */
function fieldName(path: string | undefined): string {
  const name = (path ?? "").replace(/^\//, "").replace(/\//g, ".");
  return name === "" ? "body" : name;
}

function friendlyTypeMessage(field: string, message: string): string {
  if (message === "Expected required property") return `The ${field} field is required.`;
  if (message === "Unexpected property") return `The ${field} field is not allowed.`;
  return `The ${field} is invalid: ${message.charAt(0).toLowerCase()}${message.slice(1)}.`;
}

function failedBuildingValidationError(error: unknown): boolean {
  return error instanceof TypeError && /\bnew ValidationError\b/.test(error.stack ?? "");
}

/** Top-level members of a parsed body whose value (at any depth) cannot be turned into text. */
function fieldsWithoutTextForm(body: unknown): string[] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const hostile = (value: unknown, depth: number): boolean => {
    if (value === null || typeof value !== "object" || depth > 32) return false;
    const own = value as Record<string, unknown>;
    for (const key of ["toString", "valueOf"]) {
      if (Object.hasOwn(own, key) && typeof own[key] !== "function") return true;
    }
    return Object.values(own).some((child) => hostile(child, depth + 1));
  };
  const members = body as Record<string, unknown>;
  return Object.keys(members).filter((key) => hostile(members[key], 0));
}

/** The value at a JSON pointer ("/meta/tax") inside a parsed body. */
function valueAt(root: unknown, path: string | undefined): unknown {
  let node = root;
  for (const part of (path ?? "").split("/").filter(Boolean)) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return node;
}

interface ElysiaLikeError {
  status?: number;
  all?: { path?: string; message: string }[];
  message?: string;
  type?: string;
}

/**
 * Turns any thrown value into the envelope. `code` is Elysia's error code for its own errors.
 */
export function renderError(
  code: string | number,
  error: unknown,
  requestId: string,
  log: Logger,
  request?: Request,
  body?: unknown,
): { status: number; body: ApiErrorBody; headers: Record<string, string> } {
  let apiError: ApiError;
  // Elysia wraps what a parser throws in its ParseError; the original is the cause.
  const cause = (error as { cause?: unknown })?.cause;
  if (error instanceof ApiError) {
    apiError = error;
  } else if (code === "PARSE" && cause instanceof ApiError) {
    apiError = cause;
  } else if (code === "VALIDATION") {
    const all = (error as ElysiaLikeError).all ?? [];
    const errors: FieldErrors = {};
    const where = (error as ElysiaLikeError).type;
    const value = (error as { value?: unknown }).value;
    const missing = new Set(
      all
        .filter((i) => i.message === "Expected required property" || valueAt(value, i.path) === undefined)
        .map((i) => fieldName(i.path)),
    );
    for (const issue of all) {
      // TypeBox reports a union mismatch next to the specific one; keep the specific messages.
      if (issue.message === "Expected union value" && all.length > 1) continue;
      const field = fieldName(issue.path);
      const messages = (errors[field] ??= []);
      // A missing field is also "not a string": say only that it is required.
      const message = missing.has(field)
        ? `The ${field} field is required.`
        : friendlyTypeMessage(field, issue.message);
      if (!messages.includes(message)) messages.push(message);
    }
    if (Object.keys(errors).length === 0) errors[where === "query" ? "query" : "body"] = ["The request is invalid."];
    apiError = new ValidationFailed(errors);
  } else if (code === "PARSE") {
    apiError = new ApiError("malformed_json", "The request body is not valid JSON.");
  } else if (code === "NOT_FOUND") {
    const path = request ? new URL(request.url).pathname : "";
    apiError = new ApiError("not_found", `No route for ${request?.method ?? ""} ${path}.`.replace("  ", " "));
  } else if (failedBuildingValidationError(error)) {
    // Elysia's validation message interpolates the bad value, which throws for an object whose
    // own toString/valueOf is not a function ({"toString": null}); it is still a wrong type.
    const fields = fieldsWithoutTextForm(body);
    const errors: FieldErrors = {};
    for (const field of fields.length ? fields : ["body"])
      errors[field] = [`The ${field} has a value of the wrong type.`];
    apiError = new ValidationFailed(errors);
  } else if ((error as ElysiaLikeError)?.status === 413) {
    apiError = new ApiError("payload_too_large", TOO_LARGE_MESSAGE);
  } else {
    log.error(`request ${requestId} failed: ${(error as Error)?.stack ?? String(error)}`);
    apiError = new ApiError("internal_error", `Internal error; see the sandbox log for request ${requestId}.`, {
      request_id: requestId,
    });
  }
  return {
    status: apiError.status,
    body: apiError.toBody(),
    headers: { ...apiError.headers, "x-request-id": requestId },
  };
}

/** The plugin: every error of every route (and of the steps before routing) answered in the envelope. */
export function errorEnvelope(deps: { log: Logger }) {
  // Destructured: Elysia reads which members its hooks use from their source, and a hook that
  // takes the whole context makes it prepare every member (query, cookies, ...) for every request.
  return new Elysia({ name: "error-envelope" }).onError({ as: "global" }, ({ code, error, request, set, body }) => {
    const id = requestIdOf(set);
    // body: the parsed body, when the error came after parsing.
    const rendered = renderError(code, error, id, deps.log, request, body);
    // Every 5xx is logged with its request id, whether or not request lines are on.
    if (rendered.status >= 500) {
      deps.log.error(`${request.method} ${new URL(request.url).pathname} ${rendered.status} request ${id}`);
    }
    set.status = rendered.status;
    Object.assign(set.headers, rendered.headers);
    return rendered.body;
  });
}
