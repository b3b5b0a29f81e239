import { createHmac, timingSafeEqual } from "node:crypto";

/** Request headers as fetch (`Headers`) or Node's http module (`IncomingHttpHeaders`) gives them. */
type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string {
  if (typeof headers.get === "function") return (headers as { get(name: string): string | null }).get(name) ?? "";
  const value = (headers as Record<string, string | string[] | undefined>)[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/**
 * Checks a webhook from paysandbox. `rawBody` is the request body exactly as received (before
 * JSON.parse), `headers` the request's headers, `secret` the merchant's webhook_secret.
 * PaySandbox-Signature is `t=<unix seconds>,v2=<hex HMAC-SHA256(secret,
 * "<t>.<PaySandbox-Delivery-Id>.<PaySandbox-Event-Name>.<raw body>")>`, so a body replayed under
 * another delivery id or event name fails. False when no v2 matches or `t` is older (or newer)
 * than `toleranceSeconds`. De-duplicate on PaySandbox-Delivery-Id: a delivery may come twice.
 */
export function verifyPaySandboxSignature(
  rawBody: string,
  headers: HeaderSource,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const deliveryId = header(headers, "PaySandbox-Delivery-Id");
  const event = header(headers, "PaySandbox-Event-Name");
  if (!deliveryId || !event || deliveryId.includes(".") || event.includes(".")) return false;
  let timestamp = "";
  const signatures: string[] = [];
  for (const part of header(headers, "PaySandbox-Signature").split(",")) {
    const [key, value = ""] = part.trim().split("=", 2) as [string, string?];
    if (key === "t") timestamp = value;
    if (key === "v2") signatures.push(value);
  }
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const signed = `${timestamp}.${deliveryId}.${event}.${rawBody}`;
  const expected = Buffer.from(createHmac("sha256", secret).update(signed).digest("hex"));
  return signatures.some((signature) => {
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
