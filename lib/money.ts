/** Money is stored as integer cents and shown as a number with two decimals. */
export function centsToNumber(cents: number): number {
  return Math.round(cents) / 100;
}

/** "1234.5" style display with two decimals, for e-mails and pages. */
export function formatMoney(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}
