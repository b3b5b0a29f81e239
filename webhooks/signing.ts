import { hmacHex } from "../lib/crypto";

/** Header names of a webhook delivery (docs/contract.md §9). */
export const HEADER_EVENT = "PaySandbox-Event-Name";
export const HEADER_DELIVERY_ID = "PaySandbox-Delivery-Id";
export const HEADER_SIGNATURE = "PaySandbox-Signature";

/**
 * The PaySandbox-Signature header for a body: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
 * `t` is real time, not the merchant's sandbox clock, so receivers can check freshness
 * against their own clock whatever the sandbox clock says.
 * @example signatureHeader("whsec_x", '{"id":"1"}', 1763740800) // "t=1763740800,v1=5f0c…"
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${body}`)}`;
}
