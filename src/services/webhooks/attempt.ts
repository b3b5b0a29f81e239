/**
 * One POST of a webhook delivery, the parts that are no state of the dispatcher's: the signed
 * headers, the start of the receiver's answer, and how an attempt reads in the deliveries log.
 */
import type { ClaimedDelivery } from "../../storage/repositories/webhooks";
import pkg from "../../../package.json";
import { SNIPPET_CHARS } from "../../domain/webhook-policy";
import {
  HEADER_DELIVERY_ID,
  HEADER_EVENT,
  HEADER_SIGNATURE,
  signatureHeader,
} from "../../../packages/webhooks/signing";

const USER_AGENT = `PaySandbox-Webhooks/${pkg.version}`;

/** What one attempt came to, as the attempt log stores it. */
export interface Outcome {
  success: boolean;
  statusCode: number | null;
  snippet: string | null;
  /** The receiver's answer headers, as a JSON object; null when no answer came. */
  responseHeaders: string | null;
  error: string | null;
  /** The sandbox stopped while the request was out: logged, not counted, sent again after restart. */
  interrupted: boolean;
}

export function failure(error: string): Outcome {
  return { success: false, statusCode: null, snippet: null, responseHeaders: null, error, interrupted: false };
}

/** The headers of one attempt, signed at real time (see signing.ts); kept in the attempt log. */
export function requestHeaders(row: ClaimedDelivery): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    [HEADER_EVENT]: row.event,
    [HEADER_DELIVERY_ID]: row.id,
    [HEADER_SIGNATURE]: signatureHeader(
      row.webhook_secret,
      { deliveryId: row.id, event: row.event, body: row.body },
      Math.floor(Date.now() / 1000),
    ),
  };
}

/** The start of the receiver's answer, without reading more than a few KiB of it. */
export async function readSnippet(response: Response): Promise<string | null> {
  if (!response.body) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_CHARS * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks)).slice(0, SNIPPET_CHARS);
  return text === "" ? null : text;
}

export function describe(error: unknown): string {
  const code = (error as { code?: string })?.code;
  const message = (error as Error)?.message ?? String(error);
  if (code === "ConnectionRefused" || /ECONNREFUSED|refused/i.test(message)) return "Connection refused.";
  return `Request failed: ${message}`;
}

/** Origin and path only: query strings and credentials in a target URL stay out of the log. */
export function safeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin + parsed.pathname;
  } catch {
    return "(invalid url)";
  }
}

/** The host[:port] of a target URL, for messages. */
export function safeHost(target: string): string {
  try {
    return new URL(target).host;
  } catch {
    return "(invalid URL)";
  }
}
