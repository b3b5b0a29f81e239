/**
 * The one body parser: JSON whatever the content-type says (but multipart/form-data on the upload
 * routes, ./multipart.ts), read by {@link readBody} (at most
 * 1 MiB), an empty body as {}. Malformed JSON is a 400 `malformed_json`; JSON that is not an object
 * (`"hello"`, `[]`, `42`, `null`: no route takes one) is a 422; JSON nested deeper than
 * {@link MAX_JSON_DEPTH} or holding a NUL character in any string or key is a 422. Routes then
 * validate the parsed value against their schema.
 *
 * @example
 * new Elysia().use(jsonBody()).post("/echo", ({ body }) => body);
 */
import { Elysia } from "elysia";
import { ApiError, ValidationFailed } from "../../domain/errors";
import { readBody } from "./body";
import { NOT_AN_OBJECT_MESSAGE, NUL_MESSAGE } from "./messages";
import { isMultipart, isUploadPath, parseMultipart } from "./multipart";

/** The deepest nesting of objects and arrays a JSON body may have. */
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses a parsed JSON body nested deeper than MAX_JSON_DEPTH with a 422, walking it without
 * recursion (so any depth JSON.parse accepts is safe here).
 */
export function assertShallow(value: unknown, limit = MAX_JSON_DEPTH): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > limit) {
      throw new ValidationFailed({
        body: [`The JSON body may not nest objects and arrays deeper than ${limit} levels.`],
      });
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
    }
  }
}

/** Whether any string (or key) in a parsed JSON value holds U+0000, which no stored text may hold. */
function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\0");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value && typeof value === "object") {
    return Object.entries(value).some(([key, inner]) => key.includes("\0") || holdsNul(inner));
  }
  return false;
}

/**
 * Parses a request's body as JSON (the app's onParse; the OpenAPI document names it application/json),
 * or, on an upload path, a multipart/form-data body into its fields (./multipart.ts).
 */
export async function parseJsonBody({
  request,
  contentType,
  path,
}: {
  request: Request;
  contentType?: string;
  path?: string;
}): Promise<unknown> {
  // Elysia's contentType has lost the boundary: the form is read with the header itself.
  if (path !== undefined && isUploadPath(path) && isMultipart(contentType)) {
    return parseMultipart(request, request.headers.get("content-type") ?? "");
  }
  const text = await readBody(request);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("malformed_json", "The request body is not valid JSON.");
  }
  // Before this check, a schema of optional fields took such a body as {} on some routes.
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ValidationFailed({ body: [NOT_AN_OBJECT_MESSAGE] });
  }
  // Absurdly nested JSON would overflow the stack of every recursive walk after this point.
  assertShallow(value);
  // JSON spells NUL only as \u0000: the walk runs only when that text is there (cheap on the hot path).
  if (text.includes("\\u0000") && holdsNul(value)) throw new ValidationFailed({ body: [NUL_MESSAGE] });
  return value;
}

/** The plugin: every route's body goes through {@link parseJsonBody}. */
export function jsonBody() {
  return new Elysia({ name: "json-body" }).onParse({ as: "global" }, parseJsonBody);
}
