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

/** `meta.webhook_retry_count` of POST /webhook: retries after the first failed attempt. */
export const RETRY_COUNT_RANGE = { minimum: 0, maximum: 10 } as const;
/** `meta.webhook_retry_frequency` of POST /webhook: minutes between attempts (a day at most). */
export const RETRY_FREQUENCY_RANGE = { minimum: 1, maximum: 1440 } as const;

/**
 * A webhook's own retry settings (POST /webhook `meta`); null keeps the default: {@link MAX_ATTEMPTS}
 * attempts, and the waits of {@link RETRY_DELAYS_MS} (its last one repeated past its end).
 */
export interface RetrySettings {
  retryCount: number | null;
  retryFrequencyMinutes: number | null;
}

export const DEFAULT_RETRY: RetrySettings = { retryCount: null, retryFrequencyMinutes: null };

/** Attempts a delivery gets, the first one included. */
export function maxAttempts(settings: RetrySettings = DEFAULT_RETRY): number {
  return settings.retryCount === null ? MAX_ATTEMPTS : settings.retryCount + 1;
}

/** The delay before the attempt after attempt number `attempt` (1-based), on the sandbox clock. */
export function retryDelayMs(attempt: number, settings: RetrySettings = DEFAULT_RETRY): number {
  if (settings.retryFrequencyMinutes !== null) return settings.retryFrequencyMinutes * 60_000;
  return RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0]!;
}
