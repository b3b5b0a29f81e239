import { createHmac, randomBytes } from "node:crypto";

/** SHA-256 in hex. Bun's one-shot hash: ~0.3 µs where node:crypto's createHash takes ~1.6 µs (once per authenticated request). */
export function sha256Hex(value: string): string {
  return Bun.SHA256.hash(value, "hex");
}

export function hmacHex(secret: string, value: string): string {
  return createHmac("sha256", secret).update(value).digest("hex");
}

/**
 * Compares two strings in time that depends only on their lengths: every UTF-16 unit is compared,
 * the differences gathered without an early exit. No buffers are made (node:crypto's
 * timingSafeEqual needs two, which cost more than the comparison: 0.22 -> 0.03 µs per call, once
 * per authenticated request).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** A random URL-safe token with a readable prefix. */
export function randomToken(prefix: string, bytes = 24): string {
  return prefix + randomBytes(bytes).toString("base64url");
}

/** Random digits, e.g. for issuer auth codes. */
export function randomDigits(count: number): string {
  // One typed-array fill and a plain loop: Buffer + Array.from + join was ~1% of a charge.
  const bytes = crypto.getRandomValues(new Uint8Array(count));
  let digits = "";
  for (let i = 0; i < count; i++) digits += bytes[i]! % 10;
  return digits;
}
