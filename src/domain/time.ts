/** The second last formatted and its text: under load most calls ask for the same second again. */
let lastSecond = NaN;
let lastText = "";

/** Record timestamps: `YYYY-MM-DD HH:MM:SS` in UTC, which also sorts as text. */
export function formatTimestamp(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = date.toISOString().slice(0, 19).replace("T", " ");
    lastSecond = second;
  }
  return lastText;
}

/** Parses a record timestamp (or a `YYYY-MM-DD` date) as UTC. */
export function parseTimestamp(value: string): Date {
  return new Date(value.length === 10 ? `${value}T00:00:00Z` : `${value.replace(" ", "T")}Z`);
}

/** `YYYY-MM-DD` of a date in UTC. */
export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
