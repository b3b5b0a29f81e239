/** How webhooks are delivered: the numbers a merchant can rely on (documented in the README). */

/** Attempts per delivery, the first one included; after the last failure the delivery is `failed`. */
export const MAX_ATTEMPTS = 5;

/**
 * Wait before attempt 2, 3, 4 and 5, on the merchant's sandbox clock (so advancing the clock
 * runs due retries at once): 10 s, 1 min, 10 min, 1 h.
 */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 600_000, 3_600_000];

/** A receiver that has not answered (headers and body) after this long has failed the attempt. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Characters of the receiver's answer kept in the attempt log. */
export const SNIPPET_CHARS = 500;

/** At most this many requests out at once, over all merchants... */
export const MAX_IN_FLIGHT = 32;
/** ...and per merchant, so one merchant's stalled receiver cannot hold up the others. */
export const MAX_IN_FLIGHT_PER_MERCHANT = 8;

/** The delay before the attempt after attempt number `attempt` (1-based). */
export function retryDelayMs(attempt: number): number {
  return RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0]!;
}
