/** JSON requests to the sandbox with errors that say which request failed and what it answered. */

/** How long waitFor() helpers wait unless told otherwise. */
export const DEFAULT_WAIT_MS = 10_000;

/** A request the sandbox answered with an error (its error envelope is in `body`). */
export class SandboxRequestError extends Error {
  override name = "SandboxRequestError";
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    const envelope = body as { code?: unknown; message?: unknown } | null;
    const detail =
      envelope && typeof envelope === "object" && typeof envelope.message === "string"
        ? `${String(envelope.code)}: ${envelope.message}`
        : JSON.stringify(body).slice(0, 300);
    super(`paysandbox: ${method} ${path} answered ${status} (${detail})`);
  }
}

export interface RequestOptions {
  apiKey?: string;
  body?: unknown;
}

/** Sends one JSON request and resolves with the parsed answer; rejects with SandboxRequestError on a non-2xx. */
export async function requestJson<T>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(baseUrl + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `paysandbox: ${method} ${baseUrl}${path} failed: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // Not JSON: keep the text for the error message.
  }
  if (!response.ok) throw new SandboxRequestError(method, path, response.status, body);
  return body as T;
}

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes; then throws `onTimeout()`. */
export async function poll<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  onTimeout: () => Promise<Error> | Error,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw await onTimeout();
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
