import { createHmac } from "node:crypto";

/** Header names of a webhook delivery (docs/contract.md §9). */
export const HEADER_EVENT = "PaySandbox-Event-Name";
export const HEADER_DELIVERY_ID = "PaySandbox-Delivery-Id";
export const HEADER_SIGNATURE = "PaySandbox-Signature";

/** What a webhook signature covers, besides its timestamp. */
export interface SignedDelivery {
  deliveryId: string;
  event: string;
  body: string;
}

/** The signed string: `<t>.<delivery id>.<event name>.<raw body>` (neither id nor event name holds a dot). */
export function signedPayload(delivery: SignedDelivery, unixSeconds: number): string {
  return `${unixSeconds}.${delivery.deliveryId}.${delivery.event}.${delivery.body}`;
}

/**
 * The PaySandbox-Signature header of a delivery:
 * `t=<unix seconds>,v2=<hex HMAC-SHA256(secret, "<t>.<delivery id>.<event name>.<raw body>")>`.
 * It covers the delivery id and the event name, so a captured body cannot be replayed under a
 * fresh delivery id or as another event, and `t`, so receivers can refuse old ones. `t` is real
 * time, not the merchant's sandbox clock, so receivers check freshness against their own clock.
 * (`v1`, the body alone, is no longer sent: a receiver still checking it fails closed.)
 * @example signatureHeader("whsec_x", { deliveryId: "d1", event: "create_customer", body: '{"id":"1"}' }, 1763740800)
 */
export function signatureHeader(secret: string, delivery: SignedDelivery, unixSeconds: number): string {
  return `t=${unixSeconds},v2=${createHmac("sha256", secret).update(signedPayload(delivery, unixSeconds)).digest("hex")}`;
}
