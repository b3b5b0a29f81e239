/**
 * The upload routes' bodies (`/file`, `/file/{id}`, `/file/dispute`): `multipart/form-data` read by
 * the one body parser (./json.ts) when the path is an upload path, at most
 * {@link MAX_UPLOAD_BODY_BYTES} (a 5 MiB file and its form), into a plain object of its fields
 * (text as strings, files as File; a repeated field keeps its last value) for the route's schema.
 * A multipart body anywhere else is read as JSON, as before (a 400).
 *
 * @example
 * const body = await parseMultipart(request, "multipart/form-data; boundary=x"); // { name: "receipt", file: File }
 */
import { ApiError, ValidationFailed } from "../../domain/errors";
import { readBytes } from "./body";
import { NUL_MESSAGE } from "./messages";

/** A 5 MiB file (src/services/files/content.ts) and room for the rest of its form. */
export const MAX_UPLOAD_BODY_BYTES = 5 * 1024 * 1024 + 64 * 1024;

export const UPLOAD_TOO_LARGE_MESSAGE = "An upload may not be larger than 5 MiB.";
export const MALFORMED_MULTIPART_MESSAGE = "The request body is not valid multipart/form-data.";

/** Whether a path takes multipart/form-data bodies (the file routes). */
export function isUploadPath(path: string): boolean {
  return path === "/file" || path.startsWith("/file/");
}

export function isMultipart(contentType: string | null | undefined): boolean {
  return (contentType ?? "").toLowerCase().startsWith("multipart/form-data");
}

export async function parseMultipart(request: Request, contentType: string): Promise<Record<string, unknown>> {
  const bytes = await readBytes(
    request,
    MAX_UPLOAD_BODY_BYTES,
    () => new ApiError("payload_too_large", UPLOAD_TOO_LARGE_MESSAGE),
  );
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    throw new ApiError("malformed_json", MALFORMED_MULTIPART_MESSAGE);
  }
  const body: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    if (key.includes("\0") || (typeof value === "string" && value.includes("\0"))) {
      throw new ValidationFailed({ body: [NUL_MESSAGE] });
    }
    Object.defineProperty(body, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return body;
}
