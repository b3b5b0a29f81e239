/** Record timestamps: `YYYY-MM-DD HH:MM:SS` in UTC, which also sorts as text. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** Parses a record timestamp (or a `YYYY-MM-DD` date) as UTC. */
export function parseTimestamp(value: string): Date {
  return new Date(value.length === 10 ? `${value}T00:00:00Z` : `${value.replace(" ", "T")}Z`);
}

/** `YYYY-MM-DD` of a date in UTC. */
export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}
