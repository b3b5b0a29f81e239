/**
 * The library's one way to call the sandbox: JSON POST/GET with the pay() call's
 * Idempotency-Key, retrying what is safe to retry (no answer, 5xx, 429) a bounded number of times.
 */
import { PayJsError, LIBRARY_MESSAGES, errorFromResponse } from "./errors";

export interface JsonAnswer {
  status: number;
  body: unknown;
}

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
export const MAX_ATTEMPTS = 3;
/** An attempt without an answer by then is given up and retried (the same key makes that safe). */
export const ATTEMPT_TIMEOUT_MS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends a request and returns the status and parsed body of the final answer; rejects with a
 * network_error PayJsError when no attempt got an answer.
 */
export async function requestJson(
  url: string,
  init: { method: "GET" | "POST"; body?: unknown; idempotencyKey?: string },
): Promise<JsonAnswer> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  // The same key on every attempt: a retried request replays instead of creating a second record.
  if (init.idempotencyKey) headers["idempotency-key"] = init.idempotencyKey;
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: init.method,
        headers,
        body,
        credentials: "omit",
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
    } catch {
      if (attempt < MAX_ATTEMPTS) {
        await sleep(200 * attempt);
        continue;
      }
      throw new PayJsError("network_error", LIBRARY_MESSAGES.network(new URL(url).origin));
    }
    if (RETRYABLE.has(response.status) && attempt < MAX_ATTEMPTS) {
      const retryAfter = Number(response.headers.get("retry-after"));
      await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 5) * 1000 : 200 * attempt);
      continue;
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  }
}

/** The 2xx body, or the PayJsError of any other answer. */
export async function expectOk<T>(answer: Promise<JsonAnswer>): Promise<T> {
  const { status, body } = await answer;
  if (status >= 200 && status < 300 && body && typeof body === "object") return body as T;
  throw errorFromResponse(status, body);
}
