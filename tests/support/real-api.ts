/**
 * The real service's operations (tests/fixtures/real-api/, with where they came from) and a
 * comparison of an answer with the real example answer: field names and JSON types.
 */
import operations from "../fixtures/real-api/operations.json";

export interface RealOperation {
  method: string;
  path: string;
  summary: string | null;
  parameters: string[];
  request: Record<string, unknown> | null;
  request_required: string[];
  answer_statuses: string[];
  example: unknown;
}

export const REAL_OPERATIONS = operations as unknown as RealOperation[];

/** The real operation with this method and path (as the real description spells it), or a throw. */
export function realOperation(method: string, path: string): RealOperation {
  const found = REAL_OPERATIONS.find((op) => op.method === method && op.path === path);
  if (!found) throw new Error(`expected a real operation ${method} ${path}, got none`);
  return found;
}

type JsonType = "null" | "string" | "number" | "boolean" | "array" | "object";

function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as JsonType;
}

/** A placeholder the condensation left for an object it cut out. */
const TRIMMED = new Set(["{...}", "[...]", "..."]);

/**
 * Where `answer` departs from the real `example`: "missing: a.b" for a field of the example the
 * answer lacks, "type: a.b real string, ours number" for one of another JSON type. A null in the
 * example matches any value (the description gives no type for it); nested objects are compared
 * `depth` levels deep; a list is compared by its first element. Sorted, for a stable comparison.
 */
export function shapeDifferences(answer: unknown, example: unknown, depth = 2, at = ""): string[] {
  const differences: string[] = [];
  const real = jsonType(example);
  const ours = jsonType(answer);
  if (real === "null" || (typeof example === "string" && TRIMMED.has(example))) return differences;
  if (real !== ours) return [`type: ${at || "(answer)"} real ${real}, ours ${ours}`];
  if (real === "array") {
    const [first] = example as unknown[];
    const [mine] = answer as unknown[];
    if (first !== undefined && mine !== undefined && depth > 0)
      differences.push(...shapeDifferences(mine, first, depth, `${at}[0]`));
    return differences.sort();
  }
  if (real !== "object" || depth < 0) return differences;
  const mine = answer as Record<string, unknown>;
  for (const [key, value] of Object.entries(example as Record<string, unknown>)) {
    const path = at ? `${at}.${key}` : key;
    if (!(key in mine)) differences.push(`missing: ${path}`);
    else if (depth > 0 || jsonType(value) !== "object")
      differences.push(...shapeDifferences(mine[key], value, depth - 1, path));
  }
  return differences.sort();
}
