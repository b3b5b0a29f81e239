import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Checks a webhook from paysandbox: `header` is the PaySandbox-Signature header
 * (`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`), `rawBody` the request
 * body exactly as received (before JSON.parse), `secret` the merchant's webhook_secret.
 * False when the signature does not match or is older (or newer) than `toleranceSeconds`.
 */
export function verifyPaySandboxSignature(
  rawBody: string,
  header: string | null | undefined,
  secret: string,
  toleranceSeconds = 300,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header) return false;
  let timestamp = "";
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value = ""] = part.trim().split("=", 2) as [string, string?];
    if (key === "t") timestamp = value;
    if (key === "v1") signatures.push(value);
  }
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex"));
  return signatures.some((signature) => {
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
