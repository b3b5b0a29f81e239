/** Money is stored as integer cents and shown as a number with two decimals. */
export function centsToNumber(cents: number): number {
  return Math.round(cents) / 100;
}

/** True when `cents` can be shown exactly: finite and within the safe integer range. */
export function isShowableCents(cents: number): boolean {
  return Number.isFinite(cents) && Math.abs(cents) <= Number.MAX_SAFE_INTEGER;
}

/**
 * "$1,234.50" style display with two decimals, for e-mails and pages. Refuses (RangeError) a
 * non-finite or unsafe amount rather than rendering "$∞.NaN": callers computing from input check
 * isShowableCents first.
 */
export function formatMoney(cents: number): string {
  if (!isShowableCents(cents)) throw new RangeError(`expected a finite amount of cents, got ${cents}`);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}
