/** paysandbox/testing: outcome sequences, faults, fixtures and snapshots (part of index.d.ts, shipped in it). */
import type { Outcome } from "./test-data";

/** A card's pending outcome sequence (GET /_sandbox/outcomes). */
export interface PendingOutcomes {
  readonly payment_method_id: string;
  readonly outcomes: readonly Outcome[];
}

/**
 * Outcome sequences (docs/testing-failures.md): the next authorizations of a card or bank account
 * take these outcomes in order, then its own again — charges, invoice payments and pay() alike.
 * @example
 * await merchant.outcomes.next(pm, ["insufficient_funds", "approve"]);
 */
export interface Outcomes {
  /** Arms the payment method's card (an id or a record with `id`), replacing its pending sequence. */
  next(paymentMethod: string | { readonly id: string }, outcomes: readonly Outcome[]): Promise<PendingOutcomes>;
  /** The merchant's pending sequences, in the order they were armed. */
  pending(): Promise<PendingOutcomes[]>;
  /** Clears every pending sequence of the merchant (or one payment method's); resolves with how many outcomes. */
  clear(paymentMethod?: string | { readonly id: string }): Promise<number>;
}

/** How a faulted request fails (docs/testing-failures.md "Targeted faults"). */
export type FaultKind =
  "error_500" | "unavailable_503" | "rate_limited_429" | "timeout" | "reset" | "reset_after_commit" | "latency";

/** A pending fault (GET /_sandbox/faults). */
export interface Fault {
  readonly id: string;
  readonly route: string;
  readonly kind: FaultKind;
  readonly count: number;
  readonly remaining: number;
  readonly latency_ms: number | null;
  readonly created_at: string;
}

/** A fault that fired, with the transaction the request made when it ran. */
export interface FiredFault {
  readonly id: string;
  readonly fault_id: string;
  readonly kind: FaultKind;
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly fired_at: string;
  readonly latency_ms: number | null;
  readonly transaction_id: string | null;
}

/**
 * Targeted faults: the merchant's next requests matching a route fail the given way, in order.
 * @example
 * await merchant.faults.next("POST /charge", { kind: "reset_after_commit" });
 */
export interface Faults {
  /** Arms a fault for the next `count` (default 1) requests matching `route` (`*` matches anything). */
  next(route: string, options: { kind: FaultKind; count?: number; latencyMs?: number }): Promise<Fault>;
  /** Pending faults and the ones that fired. */
  list(): Promise<{ pending: Fault[]; fired: FiredFault[] }>;
  /** Clears pending and fired faults; resolves with how many were pending. */
  clear(): Promise<number>;
}

/**
 * A step of a fixture document (docs/testing.md): an API call, or a clock step. Strings may refer to
 * an earlier named step's answer as `${name:field}` (dotted paths; `${merchant:web_payments_token}`).
 */
export type FixtureStep =
  | {
      /** Names the answer, for `${name:field}` in later steps and in `results`. */
      readonly name?: string;
      readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
      /** A path of the API with its query string, e.g. `/charge` or `/transaction/${sale:id}/refund`. */
      readonly path: string;
      readonly body?: unknown;
      /** The status the call must answer (default: any 2xx), e.g. 402 for a declined card. */
      readonly expect_status?: number;
    }
  | { readonly name?: string; readonly clock: { readonly advance: { readonly seconds: number } } };

export interface FixtureDocument {
  readonly steps: readonly FixtureStep[];
  /** Apply only if the merchant has not had this document applied since its last reset. */
  readonly once?: boolean;
}

export interface FixtureResult<Results = Record<string, any>> {
  /** False when `once` found the document applied before (the results are the first run's). */
  readonly applied: boolean;
  /** Each named step's answer, by name. */
  readonly results: Results;
}

/** A named copy of a merchant's whole state (POST /_sandbox/snapshots). */
export interface Snapshot {
  readonly name: string;
  /** Rows copied, all tables together. */
  readonly records: number;
  /** The merchant's sandbox time when it was taken. */
  readonly created_at: string;
  /** Rows copied, by table. */
  readonly tables: Readonly<Record<string, number>>;
}
