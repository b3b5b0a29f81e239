/**
 * Outcome sequences: a test arms a payment method's next authorizations with outcomes, in order
 * (POST /_sandbox/outcomes); each charge, invoice payment or pay() of its card or account takes the
 * next one in its own unit of work (TransactionService.charge), then the payment method's own
 * outcome applies again. The card, not the token: every payment method of the merchant with the
 * same number (its fingerprint) shares the sequence, since pay() tokenizes the card anew each time.
 * Stored in the database, so every process of the sandbox sees the same sequence.
 */
import type { Database } from "../storage/database";
import * as repo from "../storage/repositories/sandbox-outcomes";
import { findPaymentMethod, type PaymentMethodRow } from "../storage/repositories/payment-methods";
import { OUTCOMES, type Outcome } from "../../packages/rules/test-data";
import { DECLINE_REASONS } from "../../packages/rules/declines";
import { ValidationFailed } from "../domain/errors";
import type { SandboxClock } from "./clock";

/** The longest sequence one request arms: far more than any test needs, small enough to list. */
export const MAX_OUTCOMES = 100;

/** The 422 messages of POST /_sandbox/outcomes (tests compare against these). */
export const OUTCOME_MESSAGES = {
  paymentMethodRequired: "The payment_method_id field is required.",
  paymentMethodUnknown: (id: string) => `The payment method ${JSON.stringify(id)} is not one of this merchant's.`,
  paymentMethodDeleted: (id: string) => `The payment method ${JSON.stringify(id)} was deleted and cannot be charged.`,
  outcomesRequired: "The outcomes field must be a list of one or more outcomes.",
  tooMany: (count: number) => `The outcomes field may hold at most ${MAX_OUTCOMES} outcomes; it has ${count}.`,
  unknown: (value: unknown) =>
    `${JSON.stringify(value)} is not an outcome; the outcomes are approve and the decline codes of GET /_sandbox/test-cards.`,
  wrongMethod: (outcome: string, method: "card" | "bank") =>
    `${outcome} is a ${method === "card" ? "bank" : "card"} decline and cannot be the outcome of a ${method} payment method.`,
} as const;

const KNOWN: ReadonlySet<string> = new Set(OUTCOMES);

/** The pending sequence of one payment method, as GET /_sandbox/outcomes lists it. */
export interface PendingOutcomes {
  payment_method_id: string;
  outcomes: Outcome[];
}

export class OutcomeService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
  ) {}

  /**
   * Arms a payment method of the merchant with outcomes (replacing any pending ones). Anything
   * wrong is a 422 naming it, and nothing is armed.
   */
  async arm(merchantId: string, input: { payment_method_id?: unknown; outcomes?: unknown }): Promise<PendingOutcomes> {
    return this.db.transaction(async (tx) => {
      const errors: Record<string, string[]> = {};
      const id = input.payment_method_id;
      let pm: PaymentMethodRow | undefined;
      if (typeof id !== "string" || id.trim() === "") {
        errors.payment_method_id = [OUTCOME_MESSAGES.paymentMethodRequired];
      } else {
        pm = await findPaymentMethod(tx, merchantId, id);
        if (!pm) errors.payment_method_id = [OUTCOME_MESSAGES.paymentMethodUnknown(id)];
        else if (pm.deleted_at) errors.payment_method_id = [OUTCOME_MESSAGES.paymentMethodDeleted(id)];
      }
      const list = input.outcomes;
      if (!Array.isArray(list) || list.length === 0) {
        errors.outcomes = [OUTCOME_MESSAGES.outcomesRequired];
      } else if (list.length > MAX_OUTCOMES) {
        errors.outcomes = [OUTCOME_MESSAGES.tooMany(list.length)];
      } else {
        for (const [index, value] of list.entries()) {
          const key = `outcomes.${index}`;
          if (typeof value !== "string" || !KNOWN.has(value)) errors[key] = [OUTCOME_MESSAGES.unknown(value)];
          else if (
            pm &&
            value !== "approve" &&
            DECLINE_REASONS[value as Exclude<Outcome, "approve">].method !== pm.method
          )
            errors[key] = [OUTCOME_MESSAGES.wrongMethod(value, pm.method)];
        }
      }
      if (Object.keys(errors).length > 0 || !pm) throw new ValidationFailed(errors);
      const outcomes = list as Outcome[];
      await repo.armOutcomes(tx, pm, outcomes, this.clock.timestamp(merchantId));
      return { payment_method_id: pm.id, outcomes };
    });
  }

  /** The merchant's pending sequences, one entry per payment method, in the order they were armed. */
  async list(merchantId: string): Promise<PendingOutcomes[]> {
    const byMethod = new Map<string, Outcome[]>();
    for (const row of await repo.listOutcomes(this.db, merchantId)) {
      const list = byMethod.get(row.payment_method_id) ?? [];
      list.push(row.outcome as Outcome);
      byMethod.set(row.payment_method_id, list);
    }
    return [...byMethod].map(([paymentMethodId, outcomes]) => ({ payment_method_id: paymentMethodId, outcomes }));
  }

  /** Clears the merchant's pending outcomes (of one payment method when given); answers how many. */
  clear(merchantId: string, paymentMethodId?: string): Promise<number> {
    return repo.clearOutcomes(this.db, merchantId, paymentMethodId);
  }
}
