/**
 * Outcome sequences (POST /_sandbox/outcomes): per payment method, the outcomes its next
 * authorizations take, in seq order. A charge takes the first one in its own unit of work.
 */
import { sql, type Executor } from "../database";

export interface SandboxOutcomeRow {
  id: string;
  merchant_id: string;
  payment_method_id: string;
  seq: number;
  outcome: string;
  created_at: string;
}

/**
 * Replaces the pending sequence of the payment method's card or account (every payment method of
 * the merchant with its fingerprint) with these outcomes, in order.
 */
export async function armOutcomes(
  ex: Executor,
  pm: { merchant_id: string; id: string; fingerprint: string },
  outcomes: readonly string[],
  now: string,
): Promise<void> {
  await ex.run(
    sql`DELETE FROM sandbox_outcomes WHERE merchant_id = ${pm.merchant_id} AND payment_method_id IN (
          SELECT id FROM payment_methods WHERE merchant_id = ${pm.merchant_id} AND fingerprint = ${pm.fingerprint})`,
  );
  for (const [seq, outcome] of outcomes.entries()) {
    await ex.run(
      sql`INSERT INTO sandbox_outcomes (id, merchant_id, payment_method_id, seq, outcome, created_at)
          VALUES (${Bun.randomUUIDv7()}, ${pm.merchant_id}, ${pm.id}, ${seq}, ${outcome}, ${now})`,
    );
  }
}

/**
 * Takes (deletes and answers) the next pending outcome of a payment method's card or account (any
 * payment method of the merchant with its fingerprint: pay() tokenizes the card anew each time), or
 * undefined when none is. One statement: concurrent charges each take a different one (on
 * PostgreSQL a row another charge has taken but not committed is skipped; SQLite has one writer).
 * With nothing armed it reads one empty index range.
 */
export async function takeNextOutcome(
  ex: Executor,
  pm: { merchant_id: string; fingerprint: string },
): Promise<string | undefined> {
  const row = await ex.get<{ outcome: string }>(
    ex.dialect === "postgres"
      ? sql`DELETE FROM sandbox_outcomes WHERE id = (
              SELECT o.id FROM sandbox_outcomes o JOIN payment_methods p ON p.id = o.payment_method_id
              WHERE o.merchant_id = ${pm.merchant_id} AND p.fingerprint = ${pm.fingerprint}
              ORDER BY o.seq LIMIT 1 FOR UPDATE OF o SKIP LOCKED)
            RETURNING outcome`
      : sql`DELETE FROM sandbox_outcomes WHERE id = (
              SELECT o.id FROM sandbox_outcomes o JOIN payment_methods p ON p.id = o.payment_method_id
              WHERE o.merchant_id = ${pm.merchant_id} AND p.fingerprint = ${pm.fingerprint}
              ORDER BY o.seq LIMIT 1)
            RETURNING outcome`,
  );
  return row?.outcome;
}

/** The merchant's pending outcomes in the order they were armed (ids are time-ordered UUIDv7). */
export function listOutcomes(ex: Executor, merchantId: string): Promise<SandboxOutcomeRow[]> {
  return ex.all<SandboxOutcomeRow>(sql`SELECT * FROM sandbox_outcomes WHERE merchant_id = ${merchantId} ORDER BY id`);
}

/** Clears the merchant's pending outcomes (of one payment method when given); answers how many. */
export async function clearOutcomes(ex: Executor, merchantId: string, paymentMethodId?: string): Promise<number> {
  const result = await ex.run(
    paymentMethodId === undefined
      ? sql`DELETE FROM sandbox_outcomes WHERE merchant_id = ${merchantId}`
      : sql`DELETE FROM sandbox_outcomes WHERE merchant_id = ${merchantId} AND payment_method_id = ${paymentMethodId}`,
  );
  return result.changes;
}
